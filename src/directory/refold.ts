/**
 * The data step that brings stored user keys to `caseFoldKey` (NFKC + full case folding) in a
 * database written when keys were only lower-cased or NFC-folded. Users whose names collide under the new
 * folding are never merged: they keep their old keys (so both stay readable and writable) and
 * are reported at every start until an admin renames or deactivates one of them.
 *
 * A SQLite data step (src/server/migrate.ts): it runs on the connection, synchronously, while the
 * database opens, before the store serves anything. A PostgreSQL database starts with folded keys.
 */
import { hasTables, type Connection } from "../db/connection";
import { quoteValue } from "../http/body";
import { caseFoldKey } from "./tables";

/** settings key recording that every user key is folded (the value is the folding's version). */
const FOLDED_MARKER = "directory.user_keys_folded";
/** 1: NFC + full case folding; 2: NFKC + full case folding. */
const FOLD_VERSION = "2";

export type UserNameCollision = { key: string; users: { id: number; userName: string }[] };

/** Re-keys users and their e-mail rows; returns the collisions left apart (empty when none). */
export function refoldUserKeys(connection: Connection): UserNameCollision[] {
  if (!hasTables(connection, ["users", "settings"])) return [];
  const marker = connection.query("SELECT value FROM settings WHERE key = ?").get(FOLDED_MARKER) as { value: string } | null;
  if (marker?.value === FOLD_VERSION) return [];

  const rows = connection.query("SELECT id, user_name AS userName, user_name_key AS key FROM users").all() as { id: number; userName: string; key: string }[];
  const byKey = new Map<string, typeof rows>();
  for (const r of rows) {
    const k = caseFoldKey(r.userName);
    byKey.set(k, [...(byKey.get(k) ?? []), r]);
  }
  const collisions: UserNameCollision[] = [];
  const pending: { id: number; key: string }[] = [];
  for (const [key, group] of byKey) {
    if (group.length > 1) collisions.push({ key, users: group.map(({ id, userName }) => ({ id, userName })) });
    else if (group[0]!.key !== key) pending.push({ id: group[0]!.id, key });
  }

  // BEGIN IMMEDIATE: it reads the e-mail keys, then writes; no other writer may come between.
  connection.transaction(() => {
    const setKey = connection.query("UPDATE users SET user_name_key = ? WHERE id = ?");
    // A new key may still be another row's old one (that row moves later in the list, or is one
    // of a collision pair): retry until no row moves; what cannot move is a collision too.
    let left = pending;
    for (let progress = true; progress && left.length; ) {
      const failed: typeof pending = [];
      for (const p of left) {
        try {
          setKey.run(p.key, p.id);
        } catch {
          failed.push(p);
        }
      }
      progress = failed.length < left.length;
      left = failed;
    }
    for (const p of left) {
      const holder = rows.find((r) => r.key === p.key);
      const users = [p.id, ...(holder ? [holder.id] : [])].map((id) => ({ id, userName: rows.find((r) => r.id === id)!.userName }));
      collisions.push({ key: p.key, users });
    }
    const emails = connection.query("SELECT id, value, value_key AS key FROM user_emails").all() as { id: number; value: string; key: string }[];
    const setEmailKey = connection.query("UPDATE user_emails SET value_key = ? WHERE id = ?");
    for (const e of emails) if (caseFoldKey(e.value) !== e.key) setEmailKey.run(caseFoldKey(e.value), e.id);
    if (collisions.length === 0)
      connection.query("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(FOLDED_MARKER, FOLD_VERSION);
  }).immediate();
  return collisions;
}

/** One line per collision, for the log and `gatehouse migrate`. */
export function describeCollision(c: UserNameCollision): string {
  const who = c.users.map((u) => `id ${u.id} ${quoteValue(u.userName)}`).join(", ");
  return `userName collision under Unicode normalization and case folding: ${who} fold to ${quoteValue(c.key)}; ` +
    "they were kept apart (never merged) — rename or deactivate all but one of them";
}
