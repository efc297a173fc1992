/**
 * SCIM users through the compiled binary over real HTTP: a token made by the binary's own CLI
 * (stdout is only the token), a provisioning round trip, and the limits that only a real socket
 * shows (a chunked body without Content-Length → 413).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { buildBinary, startBinary, type RunningBinary } from "./binary";

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
let bin: RunningBinary;
let token: string;
const env = { GATEHOUSE_ADMIN_TOKEN: "e2e-admin-token-0123456789", GATEHOUSE_BASE_URL: "https://idp-facing.example.com" };

beforeAll(async () => {
  const binary = await buildBinary();
  bin = await startBinary({ env });
  const cli = Bun.spawn([binary, "scim-token", "create", "--name", "e2e IdP"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: bin.dir, GATEHOUSE_DATA_DIR: join(bin.dir, "data"), ...bin.storageEnv, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, out] = await Promise.all([cli.exited, new Response(cli.stdout).text()]);
  expect(code).toBe(0);
  expect(out).toMatch(/^scim_[A-Za-z0-9_-]+\n$/);
  token = out.trim();
}, 120_000);
afterAll(async () => {
  if (bin && bin.proc.exitCode === null) expect(await bin.stop()).toBe(0);
});

const scim = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${bin.url}/scim/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, accept: "application/scim+json", ...(body !== undefined ? { "content-type": "application/scim+json" } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

test("provisioning round trip: lookup, create, filter, patch, deactivate", async () => {
  const empty = await scim("GET", `/Users?filter=${encodeURIComponent('userName eq "e2e@example.com"')}&startIndex=1&count=100`);
  expect(empty.status).toBe(200);
  expect(empty.headers.get("content-type")).toStartWith("application/scim+json");
  expect((await empty.json() as any).totalResults).toBe(0);

  const created = await scim("POST", "/Users", { schemas: [USER], userName: "e2e@example.com", name: { givenName: "End", familyName: "ToEnd" }, emails: [{ value: "e2e@example.com", type: "work", primary: true }] });
  expect(created.status).toBe(201);
  const u = (await created.json()) as any;
  expect(created.headers.get("location")).toBe(`https://idp-facing.example.com/scim/v2/Users/${u.id}`);
  expect(u.meta.location).toBe(`https://idp-facing.example.com/scim/v2/Users/${u.id}`);

  const found = (await (await scim("GET", `/Users?filter=${encodeURIComponent('emails[type eq "work" and value eq "E2E@example.com"]')}`)).json()) as any;
  expect(found.Resources.map((x: any) => x.id)).toEqual([u.id]);

  const patched = await scim("PATCH", `/Users/${u.id}`, { schemas: [PATCH], Operations: [{ op: "Replace", path: "active", value: "False" }, { op: "Add", path: "title", value: "Tester" }] });
  expect(patched.status).toBe(200);
  expect(await patched.json()).toMatchObject({ active: false, title: "Tester" });

  expect((await scim("DELETE", `/Users/${u.id}`)).status).toBe(204);
  expect(((await (await scim("GET", `/Users/${u.id}`)).json()) as any).active).toBe(false);
});

test("errors over a real socket: 401, 415, 405, 404, and 413 for a chunked body without Content-Length", async () => {
  const anon = await fetch(`${bin.url}/scim/v2/Users`);
  expect(anon.status).toBe(401);
  expect(anon.headers.get("www-authenticate")).toStartWith("Bearer");
  expect(((await anon.json()) as any).schemas).toEqual(["urn:ietf:params:scim:api:messages:2.0:Error"]);

  expect((await scim("POST", "/Users", undefined, { "content-type": "text/xml" })).status).toBe(415);
  expect((await scim("DELETE", "/Users")).status).toBe(405);
  expect((await scim("GET", "/Nope")).status).toBe(404);

  const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent++ < 20) c.enqueue(chunk); // 1.3 MB in total if fully read
      else c.close();
    },
  });
  const big = await fetch(`${bin.url}/scim/v2/Users`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" },
    body: stream,
    duplex: "half", // a streamed request body (sent chunked)
  } as RequestInit);
  expect(big.status).toBe(413);
  const body = (await big.json()) as any;
  expect(body.status).toBe("413");
  // the server is still healthy afterwards
  expect((await scim("GET", "/Users?count=0")).status).toBe(200);
});
