/**
 * What a full database must look like from outside, on either engine (disk-full.test.ts: SQLite's
 * `max_page_count`; disk-full-postgres.test.ts: a tmpfs tablespace): writes answer 507 in each
 * protocol's format, /readyz says not writable, reads go on, and everything recovers once the
 * test has made room again, without a restart.
 */
import { expect } from "bun:test";
import { expectScimError, USER_SCHEMA } from "../scim/helpers";

type FullApp = {
  request(method: string, path: string, init?: { body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  admin(method: string, path: string, body?: unknown): Promise<Response>;
  scim(method: string, path: string, body?: unknown): Promise<Response>;
};

/** An API token of `t`'s, made while there is still room (before the database is filled). */
export async function apiOf(t: FullApp) {
  const token = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "full" })).json()) as { token: string }).token;
  return (method: string, path: string, body?: unknown) => t.request(method, path, { body, headers: { token } });
}

/** Checks the full database's behaviour, calls `makeRoom`, then checks the recovery. */
export async function expectFullThenRecovered(t: FullApp, api: Awaited<ReturnType<typeof apiOf>>, makeRoom: () => void): Promise<void> {
  let refused: Response | null = null;
  for (let i = 0; i < 50 && !refused; i++) {
    const r = await api("POST", "/api/v1/project", { title: `Full ${i}`, code: `F${i}`, description: "x".repeat(10_000) });
    if (r.status !== 200) refused = r;
  }
  expect(refused?.status).toBe(507);
  const body = (await refused!.json()) as any;
  expect(body).toMatchObject({ status: false, error: { code: "insufficient_storage" } });
  expect(body.error.message).toContain("full");

  let scim: Response | null = null;
  for (let i = 0; i < 50 && !scim; i++) {
    const r = await t.scim("POST", "/Users", { schemas: [USER_SCHEMA], userName: `full${i}@example.com`, name: { givenName: "F", familyName: "U" }, title: "t".repeat(1000), displayName: "d".repeat(1000) });
    if (r.status !== 201) scim = r;
  }
  await expectScimError(scim!, 507);

  const ready = await t.request("GET", "/readyz");
  expect(ready.status).toBe(503);
  expect(((await ready.json()) as any).database).toContain("not writable");
  expect((await api("GET", "/api/v1/project")).status).toBe(200);
  expect((await t.scim("GET", "/Users?count=5")).status).toBe(200);
  expect((await t.request("GET", "/healthz")).status).toBe(200);

  makeRoom();
  expect((await t.request("GET", "/readyz")).status).toBe(200);
  expect((await api("POST", "/api/v1/project", { title: "After", code: "AFTER", description: "x".repeat(10_000) })).status).toBe(200);
  expect((await t.scim("POST", "/Users", { schemas: [USER_SCHEMA], userName: "after@example.com", name: { givenName: "A", familyName: "U" } })).status).toBe(201);
}
