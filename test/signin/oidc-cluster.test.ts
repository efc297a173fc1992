/**
 * Sign-in through the IdP on a cluster (issue 27): two nodes on one PostgreSQL database, the real
 * OpenID Provider of op.ts. The sign-in begun on one node finishes on the other (the pending
 * sign-in travels in the sealed login cookie), and what must be refused is refused on any node
 * with the "Sign-in failed" page: a tampered cookie, an expired one, a state that is not the
 * cookie's, a callback taken before (on either node, also both at once).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { PENDING_SIGNIN_KEY_PURPOSE, pendingSignInSealer } from "../../src/admin/signin/pending-signin";
import { takeSignInState } from "../../src/admin/signin/used-states";
import { rowsOf } from "../../src/db/statement";
import { startTestCluster, type TestNode } from "../support/in-process-nodes";
import { CLIENT_ID, CLIENT_SECRET, GROUP_CONFIG, signIn, startOp } from "./op";

const BASE = "https://gatehouse.test";
const SESSION = "__Host-gatehouse_session";
const LOGIN = "__Secure-gatehouse_login";
let op: Awaited<ReturnType<typeof startOp>>;
let cluster: Awaited<ReturnType<typeof startTestCluster>>;
let a: TestNode;
let b: TestNode;

beforeAll(async () => {
  op = await startOp(BASE);
  cluster = await startTestCluster(2, { baseUrl: BASE, oidcIssuer: op.issuer, oidcClientId: CLIENT_ID, oidcClientSecret: CLIENT_SECRET, oidcScopes: "openid email profile groups", ...GROUP_CONFIG, adminTokenWithOidc: true });
  [a, b] = cluster.nodes as [TestNode, TestNode];
}, 60_000);
afterAll(async () => {
  await cluster?.close();
  await op?.close();
});

/** A browser whose /auth/login reaches `login` and whose /auth/callback reaches `callback`. */
const balancer = (login: TestNode, callback: TestNode) => (r: Request) => (new URL(r.url).pathname === "/auth/callback" ? callback : login).handle(r);

/**
 * Begins a sign-in on `on` and goes through the IdP, stopping where the browser would call
 * /auth/callback: its URL and the login cookie's value.
 */
async function reachCallback(on: TestNode, login = "olive.owner"): Promise<{ url: string; sealed: string }> {
  let held: Request | null = null;
  await signIn(async (r) => {
    if (new URL(r.url).pathname !== "/auth/callback") return on.handle(r);
    held = r;
    return new Response(null, { status: 204 });
  }, BASE, login);
  const request = held as Request | null;
  if (!request) throw new Error("the IdP never sent the browser back");
  const sealed = /(?:^|;\s*)__Secure-gatehouse_login=([^;]+)/.exec(request.headers.get("cookie") ?? "")?.[1];
  if (!sealed) throw new Error(`no login cookie on the callback: ${request.headers.get("cookie")}`);
  return { url: request.url, sealed };
}

const callback = (on: TestNode, url: string, sealed: string | null) => on.handle(new Request(url, { headers: sealed === null ? {} : { cookie: `${LOGIN}=${sealed}` } }));

/** The refusal every failed callback gets: the console's page, 400, no session, the login cookie cleared. */
async function expectRefused(r: Response, reason: string) {
  const text = await r.text();
  expect({ status: r.status, page: text.includes("<h1>Sign-in failed</h1>"), reason: text.includes(reason) }).toEqual({ status: 400, page: true, reason: true });
  expect(r.headers.get("content-type")).toContain("text/html");
  const cookies = r.headers.getSetCookie();
  expect(cookies.some((c) => c.startsWith(`${SESSION}=`))).toBe(false);
  expect(cookies.some((c) => c.startsWith(`${LOGIN}=;`) && c.includes("Max-Age=0") && c.includes("Path=/auth/callback"))).toBe(true);
}

const me = async (on: TestNode, cookie: string) => ({ status: (await on.request("GET", "/api/admin/me", { headers: { cookie } })).status });

test("begun on node A, finished on node B: signed in, and the session works on both nodes", async () => {
  const { jar, callback: done } = await signIn(balancer(a, b), BASE, "olive.owner");
  expect(done.status).toBe(303);
  expect(done.headers.get("location")).toBe("/console");
  expect(jar.get(SESSION)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  for (const node of [a, b]) {
    const r = await node.request("GET", "/api/admin/me", { headers: { cookie: jar.header() } });
    expect(((await r.json()) as { name: string }).name).toBe("olive.owner@example.com");
  }
  // And the other way round.
  const back = await signIn(balancer(b, a), BASE, "vera.viewer");
  expect(back.callback.headers.get("location")).toBe("/console");
}, 60_000);

test("the login cookie: sealed (no state, verifier or nonce readable), HttpOnly, Secure, SameSite=Lax, only for the callback, 10 minutes", async () => {
  const started = await a.request("GET", "/auth/login");
  expect(started.status).toBe(302);
  const state = new URL(started.headers.get("location")!).searchParams.get("state")!;
  const set = started.headers.getSetCookie().find((c) => c.startsWith(`${LOGIN}=`))!;
  expect(set.split("; ").slice(1).sort()).toEqual(["HttpOnly", "Max-Age=600", "Path=/auth/callback", "SameSite=Lax", "Secure"]);
  const value = set.slice(LOGIN.length + 1, set.indexOf(";"));
  expect(value).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
  expect(value).not.toContain(state);
  expect(Buffer.from(value.slice(3), "base64url").toString("latin1")).not.toContain(state);
}, 30_000);

test("a tampered cookie is refused on the other node (and on its own)", async () => {
  const { url, sealed } = await reachCallback(a);
  const at = sealed.length - 20;
  const tampered = sealed.slice(0, at) + (sealed[at] === "A" ? "B" : "A") + sealed.slice(at + 1);
  await expectRefused(await callback(b, url, tampered), "unknown or expired");
  await expectRefused(await callback(a, url, tampered), "unknown or expired");
  await expectRefused(await callback(b, url, "v1.bm90IGEgc2VhbGVkIHZhbHVl"), "unknown or expired");
  await expectRefused(await callback(b, url, null), "unknown or expired");
  // A cookie sealed under another key (a node with another GATEHOUSE_SECRET_KEY_FILE) opens nowhere.
  const foreign = pendingSignInSealer([Buffer.alloc(32, 7)]).seal({ state: new URL(url).searchParams.get("state")!, verifier: "v".repeat(43), nonce: "n".repeat(43), expires: Date.now() + 60_000 });
  await expectRefused(await callback(b, url, foreign), "unknown or expired");
  // None of them took the state: the genuine cookie still finishes the sign-in.
  expect((await callback(b, url, sealed)).status).toBe(303);
}, 60_000);

test("an expired cookie is refused, though genuinely sealed", async () => {
  const { url, sealed } = await reachCallback(a);
  const sealer = pendingSignInSealer(a.ctx.secrets.derivedKeys(PENDING_SIGNIN_KEY_PURPOSE));
  const pending = sealer.open(sealed)!;
  expect(pending.state).toBe(new URL(url).searchParams.get("state")!);
  expect(pending.expires).toBeGreaterThan(Date.now());
  await expectRefused(await callback(b, url, sealer.seal({ ...pending, expires: Date.now() - 1 })), "unknown or expired");
}, 60_000);

test("a callback whose state is not the cookie's (login CSRF: another browser's sign-in) is refused", async () => {
  const mine = await reachCallback(a, "olive.owner");
  const theirs = await reachCallback(b, "nina.nobody");
  await expectRefused(await callback(b, theirs.url, mine.sealed), "started in another browser");
  await expectRefused(await callback(a, mine.url, theirs.sealed), "started in another browser");
  const failures = await rowsOf<{ n: number }>(a.ctx.db, sql`SELECT count(*) AS n FROM audit_log WHERE action = 'session.sign_in' AND outcome = 'failure'`);
  expect(Number(failures[0]!.n)).toBeGreaterThan(0);
}, 60_000);

test("a replayed callback is refused on either node, before the code reaches the IdP again", async () => {
  const { url, sealed } = await reachCallback(a);
  expect((await callback(b, url, sealed)).status).toBe(303);
  await expectRefused(await callback(b, url, sealed), "already completed");
  await expectRefused(await callback(a, url, sealed), "already completed");
}, 60_000);

test("the same callback on both nodes at once: one session, one refusal", async () => {
  const { url, sealed } = await reachCallback(a);
  const answers = await Promise.all([callback(a, url, sealed), callback(b, url, sealed)]);
  expect(answers.map((r) => r.status).sort()).toEqual([303, 400]);
  await expectRefused(answers.find((r) => r.status === 400)!, "already completed");
  const signedIn = answers.find((r) => r.status === 303)!;
  const session = signedIn.headers.getSetCookie().find((c) => c.startsWith(`${SESSION}=`))!;
  expect(await me(a, session.split(";")[0]!)).toEqual({ status: 200 });
}, 60_000);

test("taken states are stored as hashes until their sign-in would have expired, then swept", async () => {
  const hashes = await rowsOf<{ state_hash: string; expires_at: number }>(a.ctx.db, sql`SELECT state_hash, expires_at FROM admin_signin_used_states`);
  expect(hashes.length).toBeGreaterThan(0);
  for (const h of hashes) {
    expect(h.state_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(Number(h.expires_at)).toBeGreaterThan(Date.now());
  }
  const now = Date.now();
  expect(await takeSignInState(a.ctx.db, "an-old-state", now - 1, now - 2)).toBe(true);
  expect(await takeSignInState(b.ctx.db, "an-old-state", now - 1, now - 2)).toBe(false);
  // The next callback's take, on either node, sweeps what has expired and keeps the rest.
  expect(await takeSignInState(b.ctx.db, "a-new-state", now + 60_000, now)).toBe(true);
  const left = await rowsOf<{ n: number }>(a.ctx.db, sql`SELECT count(*) AS n FROM admin_signin_used_states`);
  expect(Number(left[0]!.n)).toBe(hashes.length + 1);
});
