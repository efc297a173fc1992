import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../../context";
import { noteTokenUse } from "../../db/last-used";
import { badRequest, conflict, notFound } from "../../http/errors";
import { plainTextProblem } from "../../directory/names";
import { constantTimeEqual, generateToken, hashToken } from "../../lib/tokens";
import type { Role } from "../roles";
import type { AdminTokenCreate, AdminTokenView } from "./model";
import { adminTokens } from "./tables";
import { first, writeTransaction } from "../../db/transaction";

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

export async function createAdminToken(ctx: AppContext, input: AdminTokenCreate, createdBy: string): Promise<AdminTokenView & { token: string }> {
  const name = input.name.trim();
  const badName = plainTextProblem("name", name);
  if (badName) throw badRequest(badName, "name");
  const token = generateToken(ADMIN_TOKEN_PREFIX);
  const now = Date.now();
  const row = await writeTransaction(ctx.db,
    async (tx) => {
      // Checked here for a clear answer; the partial unique index holds it under concurrent writers.
      const taken = await first(tx.select({ id: adminTokens.id }).from(adminTokens).where(and(isNull(adminTokens.revokedAt), sql`lower(${adminTokens.name}) = lower(${name})`)).limit(1));
      if (taken) throw nameTaken(name);
      const [created] = await tx
        .insert(adminTokens)
        .values({ name, role: input.role, tokenHash: hashToken(token), createdBy, createdAt: now, expiresAt: now + input.expiresInDays * DAY_MS })
        .returning();
      return created!;
    },
  );
  return { ...view(row, now), token };
}

export async function listAdminTokens(ctx: AppContext): Promise<AdminTokenView[]> {
  const now = Date.now();
  return (await ctx.db.select().from(adminTokens).orderBy(desc(adminTokens.id))).map((r) => view(r, now));
}

export async function getAdminToken(ctx: AppContext, id: number): Promise<AdminTokenView> {
  const r = await first(ctx.db.select().from(adminTokens).where(eq(adminTokens.id, id)));
  if (!r) throw notFound(`Admin token ${id}`);
  return view(r);
}

/** Revokes a token (at once: the next request with it gets 401). Revoking a revoked one is a no-op. */
export async function revokeAdminToken(ctx: AppContext, id: number): Promise<AdminTokenView> {
  return writeTransaction(ctx.db,
    async (tx) => {
      const r = await first(tx.select().from(adminTokens).where(eq(adminTokens.id, id)));
      if (!r) throw notFound(`Admin token ${id}`);
      if (r.revokedAt !== null) return view(r);
      return view((await first(tx.update(adminTokens).set({ revokedAt: Date.now() }).where(eq(adminTokens.id, id)).returning()))!);
    },
  );
}

export type AdminTokenHolder = { id: number; name: string; role: Role };


/**
 * The live token a request presents, or null (unknown, revoked or expired). Looked up by its
 * SHA-256 (unique, indexed); the stored hash is then compared in constant time.
 */
export async function authenticateAdminToken(ctx: AppContext, token: string): Promise<AdminTokenHolder | null> {
  if (token.length > 512) return null;
  const hash = hashToken(token);
  const r = await first(ctx.db.select().from(adminTokens).where(eq(adminTokens.tokenHash, hash)));
  const now = Date.now();
  if (!r || !constantTimeEqual(r.tokenHash, hash) || r.revokedAt !== null || r.expiresAt <= now) return null;
  if (r.lastUsedAt === null || now - r.lastUsedAt > LAST_USED_RESOLUTION_MS) {
    noteTokenUse(ctx.db, "admin_tokens", r.id, now);
  }
  return { id: r.id, name: r.name, role: r.role };
}
