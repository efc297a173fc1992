/** Set-up shared by the webhook benchmark and the ledger profile: subscriptions and a backlog of events. */
import type { Db } from "../src/db/connection";
import { writeTransaction } from "../src/db/transaction";
import { EVENTS } from "../src/webhooks/catalog";
import { publish } from "../src/webhooks/publish";
import { generateSecret } from "../src/webhooks/signer";
import { webhookSubscriptions } from "../src/webhooks/tables";

/** `n` enabled subscriptions to every event at `url`. */
export async function addSubscriptions(db: Db, url: string, n: number): Promise<void> {
  const t = Date.now();
  await writeTransaction(db, async (tx) => {
    for (let i = 0; i < n; i++) await tx.insert(webhookSubscriptions).values({ url, events: ["*"], secret: generateSecret(), createdAt: t, updatedAt: t });
  });
}

/** Enqueues `n` `case.created` events in transactions of 1000 (publish per event, as producers do). */
export async function enqueueEvents(db: Db, n: number): Promise<void> {
  const payload = EVENTS["case.created"].example;
  for (let done = 0; done < n; done += 1000)
    await writeTransaction(db, async (tx) => {
      for (let i = done; i < Math.min(n, done + 1000); i++) await publish(tx, "case.created", { ...payload, id: i + 1 }, { projectCode: "BENCH" });
    });
}
