import { and, asc, between, count, desc, eq, gt, gte, lt, not } from "drizzle-orm";
import type { AppContext } from "../../context";
import type { Db } from "../../db/connection";
import { outageLog } from "../../db/availability";
import { containsText } from "../../db/dialect";
import { fastInserter } from "../../db/fast-insert";
import { preparedQuery } from "../../db/statement";
import { runsBackgroundWork } from "../../db/leader";
import { first, readSnapshot, writeTransaction } from "../../db/transaction";
import { badRequest } from "../../http/errors";
import { logExportResponse, type LogExportFormat } from "../../http/log-export";
import type { ActivityEntry, ActivityListQuery } from "./model";
import { scimActivity, type ScimActivityRow } from "./tables";

/** One SCIM write and its outcome, as the SCIM plugin observed it (no bodies). */
export type ActivityRecord = Omit<ScimActivityRow, "id">;

/** The operation a SCIM write performs, by method; null for reads. */
export function operationOf(method: string): ActivityEntry["operation"] | null {
  switch (method) {
    case "POST": return "create";
    case "PUT": return "replace";
    case "PATCH": return "update";
    case "DELETE": return "delete";
    default: return null;
  }
}

const BATCH = 1000;
const PURGE_EVERY_MS = 3_600_000;
/**
 * One row per statement, prepared once: a turn's batch varies in size, and building a multi-row
 * INSERT's SQL per batch (its text differing with the row count) was 5–7% of a create's CPU
 * under a create load (docs/benchmarks/read-path.md, round 6).
 */
const insertActivity = fastInserter(scimActivity);

/**
 * Appends activity rows. Rows are queued and written together once the current turn of the event
 * loop ends (after the answers went out), in one short transaction (one prepared INSERT per
 * row); nobody waits for its commit to be durable (`durability: "deferred"`; SQLite: it is in the
 * WAL at once, so a killed process loses nothing, and on disk with the next group sync; PostgreSQL:
 * flushed by the WAL writer within a few hundred ms or by the next acknowledged write; a power cut
 * can lose the last rows, never a write). Retention runs from here too, at most once an hour.
 */
export function activityRecorder(ctx: Pick<AppContext, "db" | "config" | "log">) {
  const writeAll = (rows: ActivityRecord[]) =>
    writeTransaction(ctx.db, async (tx) => {
      for (const row of rows) await insertActivity(tx, row);
    }, { durability: "deferred" });
  // An entry still being built (it reads the token's name) holds its place: rows are written in
  // the order the answers went out, whatever each entry's reads cost on the engine.
  let queue: (ActivityRecord | Promise<ActivityRecord | null>)[] = [];
  let lastPurge = 0;
  const purgeFailures = outageLog(ctx.log, "provisioning activity log purge");
  /** The flush under way: `flush()` waits for it, and for the one after it. */
  let flushing: Promise<void> = Promise.resolve();
  const flush = async () => {
    const pending = queue;
    queue = [];
    const rows = (await Promise.all(pending)).filter((row): row is ActivityRecord => row !== null);
    if (rows.length > 0) {
      try {
        await writeAll(rows);
      } catch (e) {
        ctx.log.error("provisioning activity log write failed", { rows: rows.length, error: String((e as Error)?.message ?? e) });
      }
    }
    const now = Date.now();
    // One node of a cluster purges: the leader (src/db/leader.ts).
    if (now - lastPurge >= PURGE_EVERY_MS && runsBackgroundWork(ctx.db)) {
      try {
        if (await purgeActivity(ctx.db, now - ctx.config.provisioningLogRetentionDays * 86_400_000)) lastPurge = now;
        purgeFailures.succeeded();
      } catch (e) {
        purgeFailures.failed(e);
      }
    }
  };
  // Flushes run one after another (a purge never overlaps the next batch); none ever rejects.
  const startFlush = () => (flushing = flushing.then(flush));
  return {
    /** Queues a row, or one being built (null: nothing to log; it never rejects). */
    record(row: ActivityRecord | Promise<ActivityRecord | null>): void {
      if (queue.length === 0) setImmediate(startFlush);
      queue.push(row);
    },
    /** Writes what is queued now, and waits for every write started before (tests, shutdown). */
    flush(): Promise<void> {
      return queue.length > 0 ? startFlush() : flushing;
    },
  };
}

const firstKeptAt = preparedQuery<{ id: number }, [number]>("SELECT id FROM scim_activity WHERE at >= ?1 ORDER BY id LIMIT 1");
const deleteBatchBelow = preparedQuery<unknown, [number]>(`DELETE FROM scim_activity WHERE id IN (SELECT id FROM scim_activity WHERE id < ?1 ORDER BY id LIMIT ${BATCH})`);

/**
 * Deletes rows older than `cutoff`, oldest first, at most 10 batches per call (each its own short
 * transaction); true when none is left. Ids grow with time, so the old rows are the ids below the
 * first one at or after the cutoff: found by reading from the start, which costs only the old
 * rows (no index on `at`).
 */
export async function purgeActivity(db: Db, cutoff: number): Promise<boolean> {
  const firstKept = await firstKeptAt.get(db, cutoff);
  const end = firstKept ? Number(firstKept.id) : Number.MAX_SAFE_INTEGER;
  for (let i = 0; i < 10; i++) {
    const { changes } = await writeTransaction(db, (tx) => deleteBatchBelow.run(tx, end));
    if (changes < BATCH) return true;
  }
  return false;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function toEntry(r: ScimActivityRow): ActivityEntry {
  return {
    id: r.id,
    at: iso(r.at),
    token: { id: r.tokenId, name: r.tokenName },
    operation: r.operation as ActivityEntry["operation"],
    resourceType: r.resourceType as ActivityEntry["resourceType"],
    resourceId: r.resourceId,
    resourceName: r.resourceName,
    status: r.status,
    scimType: r.scimType,
    detail: r.detail,
    requestId: r.requestId,
  };
}

function timeArg(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw badRequest(`${field} must be an ISO 8601 date-time`, field);
  return ms;
}

/** The SQL condition of `ActivityListQuery`'s filters (a bad time → 400 before any row is read). */
export function activityWhere(q: Omit<ActivityListQuery, "limit" | "offset">) {
  const since = timeArg(q.since, "since");
  const until = timeArg(q.until, "until");
  const a = scimActivity;
  return and(
    q.operation ? eq(a.operation, q.operation) : undefined,
    q.resourceType ? eq(a.resourceType, q.resourceType) : undefined,
    q.outcome === "success" ? between(a.status, 200, 299) : q.outcome === "failure" ? not(between(a.status, 200, 299)) : undefined,
    q.status !== undefined ? eq(a.status, q.status) : undefined,
    q.tokenId !== undefined ? eq(a.tokenId, q.tokenId) : undefined,
    q.resourceId !== undefined ? eq(a.resourceId, q.resourceId) : undefined,
    q.q ? containsText(a.resourceName, q.q) : undefined,
    since !== undefined ? gte(a.at, since) : undefined,
    until !== undefined ? lt(a.at, until) : undefined,
  );
}

/** A page of the log, newest first, with the filters of `ActivityListQuery`. */
export async function listActivity(ctx: Pick<AppContext, "db">, q: ActivityListQuery) {
  const limit = q.limit ?? 50;
  const offset = q.offset ?? 0;
  const a = scimActivity;
  const where = activityWhere(q);
  // The page and its total from one snapshot: entries arrive while an admin (or a test) reads.
  return readSnapshot(ctx.db, async () => {
    const rows = await ctx.db.select().from(a).where(where).orderBy(desc(a.id)).limit(limit).offset(offset);
    const total = (await first(ctx.db.select({ n: count() }).from(a).where(where)))!.n;
    return { total, limit, offset, items: rows.map(toEntry) };
  });
}

/** The provisioning log as a download (src/http/log-export.ts); the filters are checked before the answer starts. */
export function exportActivity(ctx: Pick<AppContext, "db">, q: Omit<ActivityListQuery, "limit" | "offset">, format: LogExportFormat): Response {
  const where = activityWhere(q);
  return logExportResponse({
    format,
    name: "provisioning",
    columns: ["id", "at", "token_id", "token_name", "operation", "resource_type", "resource_id", "resource_name", "status", "scim_type", "detail", "request_id"],
    rowsAfter: async (afterId, limit) => (await ctx.db.select().from(scimActivity).where(and(where, gt(scimActivity.id, afterId))).orderBy(asc(scimActivity.id)).limit(limit)).map(toEntry),
    cells: (e: ActivityEntry) => [e.id, e.at, e.token.id, e.token.name, e.operation, e.resourceType, e.resourceId, e.resourceName, e.status, e.scimType, e.detail, e.requestId],
    entry: (e) => e,
  });
}
