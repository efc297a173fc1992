import type { Connection } from "../db/connection";
import { immediateTransaction } from "../db/transaction";
import type { SecretBox } from "../lib/secret-box";

/**
 * Seals every stored secret that is plain (stored before encryption) or sealed with a previous
 * key, in one transaction; throws SecretKeyError when one is sealed with a key this box lacks
 * (a backup restored without its key). Returns how many values were rewritten.
 */
export function resealStoredSecrets(sqlite: Connection, box: SecretBox): number {
  const rows = sqlite.query("SELECT id, secret, previous_secret FROM webhook_subscriptions").all() as { id: number; secret: string; previous_secret: string | null }[];
  const update = sqlite.query("UPDATE webhook_subscriptions SET secret = ?2, previous_secret = ?3 WHERE id = ?1");
  let rewritten = 0;
  immediateTransaction(sqlite, () => {
    for (const r of rows) {
      const stale = [r.secret, r.previous_secret].filter((v): v is string => v !== null && box.needsReseal(v));
      if (stale.length === 0) continue;
      const reseal = (v: string | null) => (v === null ? null : box.needsReseal(v) ? box.seal(box.open(v)) : v);
      update.run(r.id, reseal(r.secret), reseal(r.previous_secret));
      rewritten += stale.length;
    }
  })();
  return rewritten;
}
