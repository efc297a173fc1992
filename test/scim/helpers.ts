import { createTestApp } from "../helpers";
import type { Config } from "../../src/config";
import { createScimToken } from "../../src/scim/tokens/service";

export const SCIM_ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";
export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
export const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";

/**
 * A test app with one SCIM token, and `scim(method, path, body?, headers?)` calling /scim/v2 with
 * it the way an IdP does (Accept and Content-Type application/scim+json).
 */
export async function createScimTestApp(overrides: Partial<Config> = {}, opts: Parameters<typeof createTestApp>[1] = {}) {
  return withScimToken(createTestApp(overrides, opts));
}

/** `createScimTestApp`'s token and `scim(…)` over another test app (e.g. test/support/sqlite-instance.ts's). */
export async function withScimToken<T extends Pick<ReturnType<typeof createTestApp>, "ctx" | "request">>(t: T) {
  const token = (await createScimToken(t.ctx.db, "test IdP")).token;
  const scim = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    t.request(method, `/scim/v2${path}`, {
      body,
      headers: {
        authorization: `Bearer ${token}`,
        accept: "application/scim+json",
        ...(body !== undefined ? { "content-type": "application/scim+json" } : {}),
        ...headers,
      },
    });
  return { ...t, token, scim };
}

export async function json(r: Response): Promise<any> {
  return JSON.parse(await r.text());
}

/** Asserts the RFC 7644 §3.12 error shape and media type; returns the body. */
export async function expectScimError(r: Response, status: number, scimType?: string): Promise<any> {
  const text = await r.text();
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${text}`);
  if (!r.headers.get("content-type")?.startsWith("application/scim+json")) throw new Error(`content-type ${r.headers.get("content-type")}`);
  const body = JSON.parse(text);
  if (body.schemas?.[0] !== SCIM_ERROR || body.status !== String(status)) throw new Error(`not a SCIM error body: ${text}`);
  if (scimType !== undefined && body.scimType !== scimType) throw new Error(`expected scimType ${scimType}: ${text}`);
  if (typeof body.detail !== "string" || body.detail.length === 0) throw new Error(`no detail: ${text}`);
  return body;
}

export const newUser = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: [USER_SCHEMA],
  userName,
  name: { givenName: "Given", familyName: "Family" },
  ...extra,
});
