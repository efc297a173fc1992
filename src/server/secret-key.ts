import { eq } from "drizzle-orm";
import type { Db } from "../db/connection";
import { settings } from "../db/tables";
import { first, writeTransaction } from "../db/transaction";
import { SecretKeyError, type SecretBox } from "../lib/secret-box";
import { resealStoredSecrets } from "../webhooks/secret-box";

/**
 * The database records the id of the secret key its sealed values use (settings
 * `secret_key.id`), so a node started with another key is refused before it serves — also while
 * no webhook secret exists yet to give the mismatch away (a cluster's first start, where each
 * node would otherwise make its own `secret.key`). Every node must share the key: webhook
 * secrets sealed by one are opened by the others, and the console's login cookie is sealed under
 * a key derived from it.
 */
export const RECORDED_KEY_SETTING = "secret_key.id";

export type KeyAdoption = {
  /** Stored webhook secrets re-sealed with the current key (plain ones, or a previous key's). */
  resealed: number;
  /** The id the database recorded before, when it was not the current key's. */
  replaced: string | null;
};

/**
 * Checks this node's key against the recorded one, re-seals what a previous key sealed and
 * records the current key, in one transaction serialized across nodes.
 * - nothing recorded (a new database, or one from before the record): the current key is recorded;
 * - the current key's id: nothing to do;
 * - a previous key's id (GATEHOUSE_SECRET_KEY_PREVIOUS_FILE, a rotation): every secret is
 *   re-sealed and the current id recorded;
 * - an id this node does not know: refused (SecretKeyError, exit 2) when the database is
 *   `shared` by nodes (PostgreSQL: another node may be running with that key right now). On a
 *   database only this process opens (SQLite, behind the data directory's lock) it is refused
 *   only when some stored secret is sealed with an unknown key; otherwise nothing sealed is lost
 *   and the current key is recorded (the caller warns).
 */
export async function adoptSecretKey(db: Db, box: SecretBox, keyFile: string, shared: boolean): Promise<KeyAdoption> {
  return writeTransaction(
    db,
    async (tx) => {
      const recorded = (await first(tx.select({ value: settings.value }).from(settings).where(eq(settings.key, RECORDED_KEY_SETTING))))?.value ?? null;
      if (recorded !== null && !box.knows(recorded) && shared)
        throw new SecretKeyError(
          `GATEHOUSE_SECRET_KEY_FILE: this node's key (${keyFile}, id ${box.keyId}) is not the key the database's secrets are sealed with (id ${recorded}). ` +
            `Every node must use the same key file (docs/cluster.md); after a restore, use the key backed up with the database; ` +
            `to rotate, put the new key in GATEHOUSE_SECRET_KEY_FILE and the old one in GATEHOUSE_SECRET_KEY_PREVIOUS_FILE`,
        );
      const resealed = await resealStoredSecrets(db, box);
      if (recorded !== box.keyId)
        await tx.insert(settings).values({ key: RECORDED_KEY_SETTING, value: box.keyId }).onConflictDoUpdate({ target: settings.key, set: { value: box.keyId } });
      return { resealed, replaced: recorded !== null && recorded !== box.keyId ? recorded : null };
    },
    { serializeOn: [RECORDED_KEY_SETTING] },
  );
}
