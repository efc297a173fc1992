import type { Db } from "../db/connection";
import { preparedQuery } from "../db/statement";
import { writeTransaction } from "../db/transaction";
import type { SecretBox } from "../lib/secret-box";

const storedSecrets = preparedQuery<{ id: number; secret: string; previous_secret: string | null }, []>("SELECT id, secret, previous_secret FROM webhook_subscriptions");
const rewriteSecrets = preparedQuery<unknown, [number, string | null, string | null]>("UPDATE webhook_subscriptions SET secret = ?2, previous_secret = ?3 WHERE id = ?1");

/**
 * Seals every stored secret that is plain (stored before encryption) or sealed with a previous
 * key, in one transaction; throws SecretKeyError when one is sealed with a key this box lacks
 * (a backup restored without its key). Returns how many values were rewritten.
 */
export async function resealStoredSecrets(db: Db, box: SecretBox): Promise<number> {
  return writeTransaction(db, async (tx) => {
    let rewritten = 0;
    for (const r of await storedSecrets.all(tx)) {
      const stale = [r.secret, r.previous_secret].filter((v): v is string => v !== null && box.needsReseal(v));
      if (stale.length === 0) continue;
      const reseal = (v: string | null) => (v === null ? null : box.needsReseal(v) ? box.seal(box.open(v)) : v);
      await rewriteSecrets.run(tx, r.id, reseal(r.secret), reseal(r.previous_secret));
      rewritten += stale.length;
    }
    return rewritten;
  });
}
