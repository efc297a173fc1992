import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../../context";
import { noteTokenUse } from "../../db/last-used";
import { badRequest, conflict, notFound } from "../../http/errors";
import { plainTextProblem } from "../../directory/names";
import { constantTimeEqual, generateToken, hashToken } from "../../lib/tokens";
import type { Role } from "../roles";
import type { AdminTokenCreate, AdminTokenView } from "./model";
import { adminTokens } from "./tables";
import { writeTransaction } from "../../db/transaction";

/** Admin API tokens: create (shown once), list, revoke, and the check of a presented one. */

export const ADMIN_TOKEN_PREFIX = "gadm";
const DAY_MS = 86_400_000;
const LAST_USED_RESOLUTION_MS = 60_000;

type Row = typeof adminTokens.$inferSelect;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function view(r: Row, now = Date.now()): AdminTokenView {
  return {
    id: r.id,
    name: r.name,
    role: r.role,
    createdBy: r.createdBy,
    createdAt: iso(r.createdAt)!,
    expiresAt: iso(r.expiresAt)!,
    lastUsedAt: iso(r.lastUsedAt),
    revokedAt: iso(r.revokedAt),
    state: r.revokedAt !== null ? "revoked" : r.expiresAt <= now ? "expired" : "active",
  };
}

const nameTaken = (name: string) => conflict(`An admin token named ${JSON.stringify(name)} exists already; revoke it or choose another name`);

export function createAdminToken(ctx: AppContext, input: AdminTokenCreate, createdBy: string): AdminTokenView & { token: string } {
  const name = input.name.trim();
  const badName = plainTextProblem("name", name);
  if (badName) throw badRequest(badName, "name");
  const token = generateToken(ADMIN_TOKEN_PREFIX);
  const now = Date.now();
  const row = writeTransaction(ctx.db,
    (tx) => {
      // Checked here for a clear answer; the partial unique index holds it under concurrent writers.
      const taken = tx.select({ id: adminTokens.id }).from(adminTokens).where(and(isNull(adminTokens.revokedAt), sql`lower(${adminTokens.name}) = lower(${name})`)).get();
      if (taken) throw nameTaken(name);
      return tx
        .insert(adminTokens)
        .values({ name, role: input.role, tokenHash: hashToken(token), createdBy, createdAt: now, expiresAt: now + input.expiresInDays * DAY_MS })
        .returning()
        .get();
    },
  );
  return { ...view(row, now), token };
}

export function listAdminTokens(ctx: AppContext): AdminTokenView[] {
  const now = Date.now();
  return ctx.db.select().from(adminTokens).orderBy(desc(adminTokens.id)).all().map((r) => view(r, now));
}

export function getAdminToken(ctx: AppContext, id: number): AdminTokenView {
  const r = ctx.db.select().from(adminTokens).where(eq(adminTokens.id, id)).get();
  if (!r) throw notFound(`Admin token ${id}`);
  return view(r);
}

/** Revokes a token (at once: the next request with it gets 401). Revoking a revoked one is a no-op. */
export function revokeAdminToken(ctx: AppContext, id: number): AdminTokenView {
  return writeTransaction(ctx.db,
    (tx) => {
      const r = tx.select().from(adminTokens).where(eq(adminTokens.id, id)).get();
      if (!r) throw notFound(`Admin token ${id}`);
      if (r.revokedAt !== null) return view(r);
      return view(tx.update(adminTokens).set({ revokedAt: Date.now() }).where(eq(adminTokens.id, id)).returning().get()!);
    },
  );
}

export type AdminTokenHolder = { id: number; name: string; role: Role };


/**
 * The live token a request presents, or null (unknown, revoked or expired). Looked up by its
 * SHA-256 (unique, indexed); the stored hash is then compared in constant time.
 */
export function authenticateAdminToken(ctx: AppContext, token: string): AdminTokenHolder | null {
  if (token.length > 512) return null;
  const hash = hashToken(token);
  const r = ctx.db.select().from(adminTokens).where(eq(adminTokens.tokenHash, hash)).get();
  const now = Date.now();
  if (!r || !constantTimeEqual(r.tokenHash, hash) || r.revokedAt !== null || r.expiresAt <= now) return null;
  if (r.lastUsedAt === null || now - r.lastUsedAt > LAST_USED_RESOLUTION_MS) {
    noteTokenUse(ctx.db, "admin_tokens", r.id, now);
  }
  return { id: r.id, name: r.name, role: r.role };
}
