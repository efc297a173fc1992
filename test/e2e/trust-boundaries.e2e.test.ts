/**
 * Issue #23's two sequences against the compiled binary over real HTTP: a workspace token trying
 * to take over a person of another workspace (docs/directory.md, "A person in several
 * workspaces"), and a result step status naming an Object.prototype member, which once was
 * stored and broke every later read of the project's results (docs/tms.md, "Enums").
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { buildBinary, startBinary, type RunningBinary } from "./binary";

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const ADMIN = "e2e-admin-token-0123456789";
let bin: RunningBinary;

beforeAll(async () => {
  await buildBinary();
  bin = await startBinary({ env: { GATEHOUSE_ADMIN_TOKEN: ADMIN } });
}, 300_000);
afterAll(async () => {
  if (bin && bin.proc.exitCode === null) expect(await bin.stop()).toBe(0);
});

const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
  const r = await fetch(`${bin.url}${path}`, { method, headers: { ...headers, ...(body !== undefined ? { "content-type": "application/json" } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null, text };
};
const admin = (method: string, path: string, body?: unknown) => call(method, `/api/admin${path}`, { authorization: `Bearer ${ADMIN}` }, body);
const scimAs = (token: string) => (method: string, path: string, body?: unknown) => call(method, `/scim/v2${path}`, { authorization: `Bearer ${token}` }, body);
const patch = (...Operations: unknown[]) => ({ schemas: [PATCH], Operations });

async function workspace(name: string) {
  const ws = (await admin("POST", "/workspaces", { name })).body;
  const token = (await admin("POST", "/scim-tokens", { name: `${name} IdP`, workspaceId: ws.id })).body.token as string;
  return { id: ws.id as number, scim: scimAs(token) };
}

test("takeover: a workspace token cannot read, rename, deactivate or reactivate a person of another workspace", async () => {
  const a = await workspace("Alpha");
  const b = await workspace("Beta");
  await workspace("Gamma");
  const alice = (await a.scim("POST", "/Users", {
    schemas: [USER, ENTERPRISE], userName: "alice@a.example", name: { givenName: "Alice", familyName: "A" },
    emails: [{ value: "alice@a.example", primary: true }], phoneNumbers: [{ value: "+1 555 0100" }], [ENTERPRISE]: { employeeNumber: "A-1" },
  })).body;
  expect((await b.scim("GET", `/Users/${alice.id}`)).status).toBe(404);
  const post = await b.scim("POST", "/Users", { schemas: [USER], userName: "alice@a.example", name: { givenName: "X", familyName: "Y" } });
  expect(post.status).toBe(400);
  expect(post.body.scimType).toBe("invalidValue");
  for (const secret of ["+1 555 0100", "A-1", alice.meta.created]) expect(post.text).not.toContain(secret);
  expect((await b.scim("PATCH", `/Users/${alice.id}`, patch({ op: "replace", path: "userName", value: "attacker@evil.example" }))).status).toBe(404);
  expect((await b.scim("DELETE", `/Users/${alice.id}`)).status).toBe(404);
  expect((await a.scim("GET", `/Users/${alice.id}`)).body).toMatchObject({ userName: "alice@a.example", active: true });

  // de-provisioning is not undone through another workspace
  const aaron = (await a.scim("POST", "/Users", { schemas: [USER], userName: "aaron@a.example", name: { givenName: "Aaron", familyName: "A" } })).body;
  expect((await a.scim("DELETE", `/Users/${aaron.id}`)).status).toBe(204);
  expect((await b.scim("POST", "/Users", { schemas: [USER], userName: "aaron@a.example", name: { givenName: "A", familyName: "A" } })).status).toBe(400);
  expect((await b.scim("PATCH", `/Users/${aaron.id}`, patch({ op: "replace", path: "active", value: true }))).status).toBe(404);
  expect((await a.scim("GET", `/Users/${aaron.id}`)).body.active).toBe(false);

  // shared by the organization: Beta reads her, changes nothing, and its DELETE only withdraws her from Beta
  expect((await admin("PUT", `/workspaces/${b.id}/members/${alice.id}`)).status).toBe(204);
  const refused = await b.scim("PATCH", `/Users/${alice.id}`, patch({ op: "replace", path: "emails", value: [{ value: "attacker@evil.example", primary: true }] }));
  expect(refused.status).toBe(400);
  expect(refused.body.scimType).toBe("mutability");
  expect((await b.scim("DELETE", `/Users/${alice.id}`)).status).toBe(204);
  expect((await a.scim("GET", `/Users/${alice.id}`)).body).toMatchObject({ active: true, emails: [{ value: "alice@a.example", primary: true }] });
}, 60_000);

test("a result step status \"constructor\" is refused, and the project's results stay readable", async () => {
  const token = (await admin("POST", "/api-tokens", { name: "reporter" })).body.token as string;
  const api = (method: string, path: string, body?: unknown) => call(method, path, { token }, body);
  expect((await api("POST", "/api/v1/project", { title: "Proto", code: "PROTO" })).status).toBe(200);
  expect((await api("POST", "/api/v1/case/PROTO", { title: "c" })).status).toBe(200);
  const run = (await api("POST", "/api/v1/run/PROTO", { title: "r", cases: [1] })).body.result.id;
  const stored = await api("POST", `/api/v1/result/PROTO/${run}`, { case_id: 1, status: "passed", steps: [{ position: 1, status: "constructor" }] });
  expect(stored.status).toBe(400);
  expect(stored.body.errorMessage).toContain("steps.0.status");
  expect((await api("GET", "/v1/case/PROTO?severity=constructor")).status).toBe(400);
  const batch = await api("POST", `/api/v2/PROTO/run/${run}/results`, { results: [{ title: "ok", execution: { status: "passed" } }, { title: "bad", execution: { status: "__proto__" } }] });
  expect(batch.status).toBe(200);
  expect(batch.body.result.errors.map((e: { index: number }) => e.index)).toEqual([1]);
  expect((await api("GET", "/api/v1/result/PROTO")).status).toBe(200);
  expect((await api("GET", `/api/v1/search?query=${encodeURIComponent('entity = "result"')}`)).status).toBe(200);
}, 60_000);
