/** Set-up shared by the webhook benchmark and the ledger profile: subscriptions and a backlog of events. */
import type { Db } from "../src/db/connection";
import { EVENTS } from "../src/webhooks/catalog";
import { publish } from "../src/webhooks/publish";
import { generateSecret } from "../src/webhooks/signer";
import { webhookSubscriptions } from "../src/webhooks/tables";

/** `n` enabled subscriptions to every event at `url`. */
export function addSubscriptions(db: Db, url: string, n: number): void {
  const t = Date.now();
  for (let i = 0; i < n; i++) db.insert(webhookSubscriptions).values({ url, events: ["*"], secret: generateSecret(), createdAt: t, updatedAt: t }).run();
}

/** Enqueues `n` `case.created` events in transactions of 1000 (publish per event, as producers do). */
export function enqueueEvents(db: Db, n: number): void {
  const payload = EVENTS["case.created"].example;
  for (let done = 0; done < n; done += 1000)
    db.transaction((tx) => {
      for (let i = done; i < Math.min(n, done + 1000); i++) publish(tx, "case.created", { ...payload, id: i + 1 }, { projectCode: "BENCH" });
    }, { behavior: "immediate" });
}
