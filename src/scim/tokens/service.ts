import { noteTokenUse } from "../../db/last-used";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/connection";
import { preparedQuery } from "../../db/statement";
import { first, writeTransaction } from "../../db/transaction";
import { storeOf } from "../../db/store";
import { settings } from "../../db/tables";
import { timingSafeEqual } from "node:crypto";
import { generateToken, hashToken } from "../../lib/tokens";
import type { Config } from "../../config";
import { scimTokens, type ScimTokenRow } from "./tables";
import { DirectoryError } from "../../directory/errors";
import { getWorkspace } from "../../directory/workspaces";
import { plainTextProblem } from "../../directory/names";

/**
 * In-process answers to "is this token valid?" and "is SCIM enabled?" are cached for
 * CACHE_MS, because every SCIM request asks both and each statement has a fixed cost.
 * Changes made in this process (admin API) bump the database's generation, which drops every
 * cache over it at once, so a revocation through the API takes effect on the very next request;
 * a change made by another process — the CLI, or another node of a cluster — is seen within
 * CACHE_MS (an entry is never older than that when served: the bound on a stale decision,
 * docs/operations.md "Several nodes on one PostgreSQL"). Measured by test/server/cluster-node.test.ts.
 */
export const CACHE_MS = 1000;
const generations = new WeakMap<object, number>();
/** The caches of one database (one app context): keyed by its store, so two apps in one process stay apart as two nodes would. */
const cacheKey = (db: Db): object => {
  try {
    return storeOf(db);
  } catch {
    return db;
  }
};
const generationOf = (db: Db) => generations.get(cacheKey(db)) ?? 0;
const invalidateCaches = (db: Db) => {
  generations.set(cacheKey(db), generationOf(db) + 1);
};

/** Whether `e` is the failure of unique index `index` (SQLite names it in the message; PostgreSQL's error, under drizzle's, in its own). */
function violates(e: unknown, index: string): boolean {
  for (let cause = e; cause instanceof Error; cause = cause.cause) if (cause.message.includes(index)) return true;
  return false;
}

/** Public view of a token: never the token or its hash. */
export type ScimTokenInfo = { id: number; name: string; workspaceId: number | null; createdAt: string; lastUsedAt: string | null; revokedAt: string | null };

const view = (r: ScimTokenRow): ScimTokenInfo => ({ id: r.id, name: r.name, workspaceId: r.workspaceId, createdAt: r.createdAt, lastUsedAt: r.lastUsedAt, revokedAt: r.revokedAt });

/**
 * Creates a token; the returned `token` is the only time it exists outside the caller. Without
 * `workspaceId` it is an organization token (every workspace); with one, a workspace token —
 * the workspace must exist and not be archived. A live token already holding the name → 409.
 */
export async function createScimToken(db: Db, name: string, workspaceId: number | null = null): Promise<ScimTokenInfo & { token: string }> {
  const badName = plainTextProblem("name", name);
  if (badName) throw new DirectoryError(400, badName, "invalidValue", "invalid_request");
  const token = generateToken("scim");
  let row: ScimTokenRow;
  try {
    row = await writeTransaction(db, async (tx) => {
      // In the transaction: a workspace archived meanwhile gets no new token.
      if (workspaceId !== null && (await getWorkspace(tx, workspaceId)).archived) throw new DirectoryError(409, `Workspace ${workspaceId} is archived`, undefined, "conflict");
      const [inserted] = await tx.insert(scimTokens).values({ name, workspaceId, tokenHash: hashToken(token), createdAt: new Date().toISOString() }).returning();
      return inserted!;
    });
  } catch (e) {
    // The unique index on live names decides, so two concurrent creates cannot both win.
    if (violates(e, "scim_tokens_live_name_unique"))
      throw new DirectoryError(409, `A live SCIM token is already named ${JSON.stringify(name)} (names are compared case-insensitively); choose another name or revoke that token first`, "uniqueness", "conflict");
    throw e;
  }
  invalidateCaches(db);
  return { ...view(row), token };
}

export async function listScimTokens(db: Db): Promise<ScimTokenInfo[]> {
  return (await db.select().from(scimTokens).orderBy(asc(scimTokens.id))).map(view);
}

/** Revokes a token (idempotent). Returns false when no such token exists. */
export async function revokeScimToken(db: Db, id: number): Promise<boolean> {
  const found = await writeTransaction(db, async (tx) => {
    const row = await first(tx.select({ revokedAt: scimTokens.revokedAt }).from(scimTokens).where(eq(scimTokens.id, id)));
    if (row && !row.revokedAt) await tx.update(scimTokens).set({ revokedAt: new Date().toISOString() }).where(and(eq(scimTokens.id, id), isNull(scimTokens.revokedAt)));
    return row !== undefined;
  });
  if (found) invalidateCaches(db);
  return found;
}

/**
 * Looks up a presented bearer token. The lookup is by SHA-256 (an index probe, so the time does
 * not depend on how many characters of a guess are right) and the stored hash is then compared
 * in constant time. Uses one prepared statement: this runs on every SCIM request.
 */
/** A valid token: its id, and the workspace it is scoped to (null: the whole organization). */
export type VerifiedToken = { id: number; workspaceId: number | null; workspaceArchived: boolean };

/** Drops the in-process caches (a workspace was archived, a token created or revoked). */
export function invalidateScimCaches(db: Db): void {
  invalidateCaches(db);
}

/** The token with a hash, and its workspace's state: prepared once, it runs on every SCIM request the cache does not answer. */
const tokenByHash = preparedQuery<{ id: number; token_hash: string; revoked_at: string | null; workspace_id: number | null; archived_at: string | null }, [string]>(
  `SELECT t.id, t.token_hash, t.revoked_at, t.workspace_id, w.archived_at
   FROM scim_tokens t LEFT JOIN workspaces w ON w.id = t.workspace_id WHERE t.token_hash = ?1`,
);

export function tokenVerifier(db: Db) {
  const lastTouched = new Map<number, number>();
  // hash → token id of recently verified tokens (only valid ones: unknown tokens always hit the
  // database, so a guesser gains nothing from the cache)
  const verified = new Map<string, { token: VerifiedToken; at: number }>();
  let seenGeneration = generationOf(db);
  return async (token: string): Promise<VerifiedToken | null> => {
    const hash = hashToken(token);
    const now = Date.now();
    const generation = generationOf(db);
    if (seenGeneration !== generation) {
      verified.clear();
      seenGeneration = generation;
    }
    const hit = verified.get(hash);
    if (hit && now - hit.at < CACHE_MS) return hit.token;
    const seen = generation;
    const row = await tokenByHash.get(db, hash);
    // both are 64 hex characters: compare them directly in constant time
    if (!row || row.revoked_at !== null || !timingSafeEqual(Buffer.from(row.token_hash), Buffer.from(hash))) {
      verified.delete(hash);
      return null;
    }
    if (verified.size > 1000) verified.clear();
    const verifiedToken: VerifiedToken = { id: row.id, workspaceId: row.workspace_id, workspaceArchived: row.archived_at !== null };
    // A revocation committed while this read was in flight must not be cached over.
    if (generationOf(db) === seen) verified.set(hash, { token: verifiedToken, at: now });
    // last_used_at is informational: write it at most once a minute per token, not per request.
    if ((lastTouched.get(row.id) ?? 0) < now - 60_000) {
      lastTouched.set(row.id, now);
      noteTokenUse(db, "scim_tokens", row.id, new Date(now).toISOString());
    }
    return verifiedToken;
  };
}

const ENABLED_KEY = "scim.enabled";

const settingByKey = preparedQuery<{ value: string }, [string]>("SELECT value FROM settings WHERE key = ?1");

/** The run-time SCIM switch: the stored admin toggle wins; before it is first set, the config. */
export function scimEnabledReader(db: Db, config: Config) {
  let cached: { value: boolean; at: number; generation: number } | null = null;
  return async (): Promise<boolean> => {
    const now = Date.now();
    const seen = generationOf(db);
    if (cached && cached.generation === seen && now - cached.at < CACHE_MS) return cached.value;
    const row = await settingByKey.get(db, ENABLED_KEY);
    const value = row ? row.value === "true" : config.scimEnabled;
    // Cached under the generation it was read in: a change made while it was read drops it.
    cached = { value, at: now, generation: seen };
    return value;
  };
}

export async function setScimEnabled(db: Db, enabled: boolean): Promise<void> {
  await writeTransaction(db, async (tx) => {
    await tx.insert(settings).values({ key: ENABLED_KEY, value: String(enabled) })
      .onConflictDoUpdate({ target: settings.key, set: { value: String(enabled) } });
  });
  invalidateCaches(db);
}
