import { first, writeTransaction } from "../../db/transaction";
import { desc, eq, lt } from "drizzle-orm";
import { randomBytes } from "node:crypto";
import type { AppContext } from "../../context";
import { notFound } from "../../http/errors";
import { hashToken } from "../../lib/tokens";
import type { Role } from "../roles";
import { sourceOf, writeAudit, type AuditActor } from "../../audit/service";
import { adminSessions, type AdminSessionRow } from "./tables";

/** Server-side console sessions: created at sign-in, found by the cookie, ended by sign-out, revocation or timeouts. */

/** "Last seen" is written at most this often, so the idle timeout is exact to within it. */
const TOUCH_EVERY_MS = 60_000;

export type NewSession = { subject: string; issuer: string; name: string; role: Role; idToken: string | null };

/** Cookie name: `__Host-` on HTTPS (the browser then insists on Secure, Path=/ and no Domain). */
export const sessionCookieName = (ctx: Pick<AppContext, "config">) => (ctx.config.baseUrl.startsWith("https:") ? "__Host-gatehouse_session" : "gatehouse_session");

/** Creates the session and records the sign-in in the same transaction; returns the cookie value. */
export async function createSession(ctx: AppContext, s: NewSession, request: Request): Promise<{ cookieValue: string; row: AdminSessionRow }> {
  const cookieValue = randomBytes(32).toString("base64url");
  const now = Date.now();
  const row = await writeTransaction(ctx.db, async (tx) => {
    const { sourceIp, userAgent } = sourceOf(request);
    const [r] = await tx
      .insert(adminSessions)
      .values({ idHash: hashToken(cookieValue), csrfToken: randomBytes(32).toString("base64url"), ...s, sourceIp, userAgent, createdAt: now, lastSeenAt: now, expiresAt: now + ctx.config.sessionAbsoluteTimeoutMs })
      .returning();
    if (!r) throw new Error("the session insert returned no row");
    await writeAudit(ctx.db, { kind: "person", name: s.name, role: s.role }, request, { action: "session.sign_in", resource: { type: "session", id: r.id }, outcome: "success", summary: { after: { subject: s.subject, issuer: s.issuer, role: s.role } } });
    return r;
  });
  return { cookieValue, row };
}

/** The live session a cookie names, or null. An expired one (idle or absolute) is deleted on sight. */
export async function findSession(ctx: AppContext, cookieValue: string, now = Date.now()): Promise<AdminSessionRow | null> {
  if (cookieValue.length > 200) return null;
  const row = await first(ctx.db.select().from(adminSessions).where(eq(adminSessions.idHash, hashToken(cookieValue))));
  if (!row) return null;
  // Both writes are best effort and never wait for another process's write lock.
  if (row.expiresAt <= now || row.lastSeenAt + ctx.config.sessionIdleTimeoutMs <= now) {
    try {
      await writeTransaction(ctx.db, (tx) => tx.delete(adminSessions).where(eq(adminSessions.id, row.id)), { waitForLock: false });
    } catch {
      // busy: it is refused all the same, and deleted next time
    }
    return null;
  }
  if (now - row.lastSeenAt >= TOUCH_EVERY_MS) {
    try {
      await writeTransaction(ctx.db, (tx) => tx.update(adminSessions).set({ lastSeenAt: now }).where(eq(adminSessions.id, row.id)), { waitForLock: false, durability: "deferred" });
    } catch {
      // best effort: a busy database must not fail a read; the next request touches it
    }
  }
  return row;
}

/** Ends a session (sign-out, or an owner revoking it); records it in the same transaction. */
export async function endSession(ctx: AppContext, row: AdminSessionRow, request: Request, action: "session.sign_out" | "session.revoke", actor: AuditActor = { kind: "person", name: row.name, role: row.role }): Promise<void> {
  await writeTransaction(ctx.db, async (tx) => {
    await tx.delete(adminSessions).where(eq(adminSessions.id, row.id));
    await writeAudit(ctx.db, actor, request, { action, resource: { type: "session", id: row.id }, outcome: "success", summary: { before: { name: row.name, role: row.role } } });
  });
}

const iso = (ms: number) => new Date(ms).toISOString();

export async function listSessions(ctx: AppContext) {
  const now = Date.now();
  // Expired rows are cleared here too (nobody is signed in with them).
  await writeTransaction(ctx.db, (tx) => tx.delete(adminSessions).where(lt(adminSessions.expiresAt, now)));
  return (await ctx.db.select().from(adminSessions).orderBy(desc(adminSessions.id)))
    .filter((r) => r.lastSeenAt + ctx.config.sessionIdleTimeoutMs > now)
    .map((r) => ({ id: r.id, name: r.name, role: r.role, subject: r.subject, sourceIp: r.sourceIp, userAgent: r.userAgent, createdAt: iso(r.createdAt), lastSeenAt: iso(r.lastSeenAt), expiresAt: iso(r.expiresAt) }));
}

export async function sessionById(ctx: AppContext, id: number): Promise<AdminSessionRow> {
  const r = await first(ctx.db.select().from(adminSessions).where(eq(adminSessions.id, id)));
  if (!r) throw notFound(`Session ${id}`);
  return r;
}
