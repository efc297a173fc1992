import { runsBackgroundWork } from "../db/leader";
import { outsideTransaction } from "../db/transaction";
import { and, asc, count, desc, eq, gt, gte, lt, sql, type SQL } from "drizzle-orm";
import type { AppContext } from "../context";
import { badRequest } from "../http/errors";
import { logExportResponse, type LogExportFormat } from "../http/log-export";
import { clientAddressOf, requestIdOf } from "../http/request-info";
import type { AuditEntry, AuditListQuery } from "./model";
import { auditLog, type AuditRow } from "./tables";
import { preparedQuery } from "../db/statement";
import { first, readSnapshot, writeTransaction } from "../db/transaction";

/**
 * The audit log: recording an admin action in the same transaction as the action, reading it with
 * filters, exporting it, and its retention. Plain functions over the database (no HTTP here).
 */

/** Who acted, as the log shows them. */
export type AuditActor = { kind: AuditEntry["actor"]["kind"]; name: string; role: string | null };
export type AuditResource = { type: string; id?: string | number | null };
export type AuditRecord = {
  action: string;
  resource?: AuditResource | null;
  summary?: { before?: unknown; after?: unknown } | null;
  outcome: AuditEntry["outcome"];
  detail?: string | null;
};

const SECRET_KEY = /secret|token|password|authorization|cookie/i;
const MAX_SUMMARY_CHARS = 8192;

/**
 * A summary safe to keep: every value under a key that names a secret is replaced by "[redacted]",
 * at any depth. Secrets are strings: a number or flag under such a key (a token's id) is kept.
 */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = Object.create(null);
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) && typeof v === "string" ? "[redacted]" : redact(v, depth + 1);
  return out;
}

function summaryText(summary: AuditRecord["summary"]): string | null {
  if (!summary) return null;
  const text = JSON.stringify(redact(summary));
  // A summary is for reading, not a backup: a huge one is cut (still valid JSON, marked so).
  return text.length <= MAX_SUMMARY_CHARS ? text : JSON.stringify({ truncated: true, head: text.slice(0, MAX_SUMMARY_CHARS) });
}

/** Where a request came from, for the log. */
export function sourceOf(request: Request | null) {
  if (!request) return { sourceIp: null, userAgent: null, requestId: null };
  return { sourceIp: clientAddressOf(request), userAgent: request.headers.get("user-agent")?.slice(0, 300) ?? null, requestId: requestIdOf(request) };
}

/** Appends one entry. Call it inside the action's transaction, so both commit or neither does. */
export async function writeAudit(db: AppContext["db"], actor: AuditActor, request: Request | null, r: AuditRecord, at = Date.now()): Promise<void> {
  await db
    .insert(auditLog)
    .values({
      at,
      actorKind: actor.kind,
      actorName: actor.name.slice(0, 300),
      actorRole: actor.role,
      ...sourceOf(request),
      action: r.action,
      resourceType: r.resource?.type ?? null,
      resourceId: r.resource?.id === undefined || r.resource?.id === null ? null : String(r.resource.id),
      summary: summaryText(r.summary),
      outcome: r.outcome,
      detail: r.detail?.slice(0, 1000) ?? null,
    });
  afterAuditWrite(db);
}

/** What an action is, for `audited`: its name, what it touches, and how to summarise before and after. */
export type AuditedAction<T> = {
  action: string;
  /** The resource; its id may come from the result (a create). */
  resource: { type: string; id?: string | number | null | ((result: T) => string | number) };
  /** The state before the action (read inside the same transaction). */
  before?: () => unknown | Promise<unknown>;
  /** The state after; by default the action's result. */
  after?: (result: T) => unknown;
};

/** Status of an error the action threw on purpose (4xx); anything else is not the admin's doing. */
const refusalStatus = (e: unknown): number | null => {
  const s = (e as { status?: unknown })?.status;
  return typeof s === "number" && s >= 400 && s < 500 ? s : null;
};

/**
 * Runs an admin action and records it in one write transaction: the entry commits with the
 * action or not at all. The services' own transactions nest inside (savepoints), and their reads
 * through `ctx.db` run in it. When the action refuses (a 4xx it threw: not found, conflict,
 * invalid), the refusal is recorded as a `failure` in a transaction of its own, and the error goes
 * on to the caller.
 */
export async function audited<T>(ctx: Pick<AppContext, "db">, actor: AuditActor, request: Request | null, spec: AuditedAction<T>, run: () => Promise<T>): Promise<T> {
  try {
    return await writeTransaction(ctx.db, async () => {
      const before = await spec.before?.();
      const result = await run();
      const id = typeof spec.resource.id === "function" ? spec.resource.id(result) : spec.resource.id;
      const after = spec.after ? spec.after(result) : result;
      await writeAudit(ctx.db, actor, request, { action: spec.action, resource: { type: spec.resource.type, id }, outcome: "success", summary: { ...(spec.before ? { before } : {}), after } });
      return result;
    });
  } catch (e) {
    const status = refusalStatus(e);
    if (status !== null) {
      const id = typeof spec.resource.id === "function" ? null : spec.resource.id;
      try {
        await writeTransaction(ctx.db, () => writeAudit(ctx.db, actor, request, { action: spec.action, resource: { type: spec.resource.type, id }, outcome: "failure", detail: `${status}: ${(e as Error).message}` }));
      } catch {
        // the refusal is what the caller must see; a log write that fails here must not replace it
      }
    }
    throw e;
  }
}

// ---- retention -------------------------------------------------------------------------------

const PURGE_EVERY_MS = 3_600_000;
const PURGE_BATCH = 1000;
const retention = new WeakMap<object, { days: number; lastPurge: number; db: AppContext["db"] }>();

/** Registers the database's retention (days); the purge then runs at most hourly after a write. */
export function keepAuditFor(db: AppContext["db"], days: number): void {
  retention.set(db, { days, lastPurge: 0, db });
}

function afterAuditWrite(db: AppContext["db"]): void {
  const r = retention.get(db);
  // One node of a cluster purges: the leader, after an action it serves (src/db/leader.ts).
  if (!r || Date.now() - r.lastPurge < PURGE_EVERY_MS || !runsBackgroundWork(r.db)) return;
  r.lastPurge = Date.now();
  // After the action's transaction, never inside it (detached from its task): a purge must not make an admin action wait.
  outsideTransaction(() =>
    setTimeout(() => {
      void purgeAuditLog(r.db, Date.now() - r.days * 86_400_000).catch(() => {
        r.lastPurge = 0; // busy or closed: try again after the next write
      });
    }, 0),
  ).unref?.();
}

const purgeAuditBatch = preparedQuery<unknown, [number]>(`DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < ?1 ORDER BY id LIMIT ${PURGE_BATCH})`);

/** Deletes entries older than `cutoff`, oldest first, in batches (a transaction each); true when none is left. */
export async function purgeAuditLog(db: AppContext["db"], cutoff: number): Promise<boolean> {
  for (let i = 0; i < 10; i++) {
    const { changes } = await writeTransaction(db, (tx) => purgeAuditBatch.run(tx, cutoff), { waitForLock: false });
    if (changes < PURGE_BATCH) return true;
  }
  return false;
}

// ---- reading ---------------------------------------------------------------------------------

const iso = (ms: number) => new Date(ms).toISOString();

export function toAuditEntry(r: AuditRow): AuditEntry {
  return {
    id: r.id,
    at: iso(r.at),
    actor: { kind: r.actorKind as AuditEntry["actor"]["kind"], name: r.actorName, role: r.actorRole },
    source: { ip: r.sourceIp, userAgent: r.userAgent, requestId: r.requestId },
    action: r.action,
    resource: r.resourceType === null ? null : { type: r.resourceType, id: r.resourceId },
    summary: r.summary === null ? null : (JSON.parse(r.summary) as AuditEntry["summary"]),
    outcome: r.outcome as AuditEntry["outcome"],
    detail: r.detail,
  };
}

function timeArg(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw badRequest(`${field} must be an ISO 8601 date-time`, field);
  return ms;
}

type Filters = Omit<AuditListQuery, "limit" | "offset">;

function whereOf(q: Filters): SQL | undefined {
  const since = timeArg(q.since, "since");
  const until = timeArg(q.until, "until");
  const a = auditLog;
  // An action family ("webhook.") matches by prefix; LIKE's wildcards in it are escaped.
  const family = q.action?.endsWith(".") ? q.action.replace(/[!%_]/g, (c) => "!" + c) + "%" : null;
  return and(
    q.actor ? eq(a.actorName, q.actor) : undefined,
    q.action ? (family ? sql`${a.action} LIKE ${family} ESCAPE '!'` : eq(a.action, q.action)) : undefined,
    q.resourceType ? eq(a.resourceType, q.resourceType) : undefined,
    q.resourceId ? eq(a.resourceId, q.resourceId) : undefined,
    q.outcome ? eq(a.outcome, q.outcome) : undefined,
    since !== undefined ? gte(a.at, since) : undefined,
    until !== undefined ? lt(a.at, until) : undefined,
  );
}

/** A page of the log, newest first. */
export async function listAudit(ctx: Pick<AppContext, "db">, q: AuditListQuery) {
  const limit = q.limit ?? 50;
  const offset = q.offset ?? 0;
  const where = whereOf(q);
  return readSnapshot(ctx.db, async () => {
    const rows = await ctx.db.select().from(auditLog).where(where).orderBy(desc(auditLog.id)).limit(limit).offset(offset);
    const total = (await first(ctx.db.select({ n: count() }).from(auditLog).where(where)))!.n;
    return { total, limit, offset, items: rows.map(toAuditEntry) };
  });
}

/** The audit log as a download (src/http/log-export.ts); the filters are checked before the answer starts. */
export function exportAudit(ctx: Pick<AppContext, "db">, q: Filters, format: LogExportFormat): Response {
  const where = whereOf(q);
  return logExportResponse<AuditRow>({
    format,
    name: "audit",
    columns: ["id", "at", "actor_kind", "actor_name", "actor_role", "source_ip", "user_agent", "request_id", "action", "resource_type", "resource_id", "outcome", "detail", "summary"],
    rowsAfter: (afterId, limit) => ctx.db.select().from(auditLog).where(and(where, gt(auditLog.id, afterId))).orderBy(asc(auditLog.id)).limit(limit),
    cells: (r) => [r.id, iso(r.at), r.actorKind, r.actorName, r.actorRole, r.sourceIp, r.userAgent, r.requestId, r.action, r.resourceType, r.resourceId, r.outcome, r.detail, r.summary],
    entry: toAuditEntry,
  });
}
