/**
 * Property test: thousands of random filters and bodies (seeded, so a failure reproduces) thrown
 * at /Users. Properties: never a 5xx; every answer is a SCIM error body or a valid resource /
 * ListResponse with application/scim+json; the stored rows keep their invariants (and SQLite's file
 * passes PRAGMA integrity_check).
 */
import { afterAll, expect, test } from "bun:test";
import { sql, type SQL } from "drizzle-orm";
import { rowsOf } from "../../../src/db/statement";
import { caseFoldKey } from "../../../src/directory/tables";
import { createScimTestApp, LIST_SCHEMA, newUser, PATCH_SCHEMA, SCIM_ERROR, USER_SCHEMA } from "../helpers";

const t = await createScimTestApp({ scimRateBurst: 1_000_000, scimRateLimit: 1_000_000, licenseSeats: 40 });
afterAll(() => t.close());

// mulberry32: small, seeded, good enough for test data
function rng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(0x5c1a);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const chance = (p: number) => rand() < p;

const GOOD_ATTRS = ["userName", "externalId", "displayName", "title", "name.givenName", "name.familyName", "emails.value", "emails.type", "emails"];
const ATTRS = ["userName", "USERNAME", "externalId", "displayName", "title", "userType", "active", "id", "name.givenName", "name.familyName", "name.formatted", "name",
  "emails", "emails.value", "emails.type", "emails.primary", "meta.created", "meta.lastModified", "meta.resourceType", "urn:ietf:params:scim:schemas:core:2.0:User:userName",
  "shoeSize", "name.x", "urn:x:y", "a.b.c", "", "groups", "emails.display"];
const OPS = ["eq", "ne", "co", "sw", "ew", "gt", "ge", "lt", "le", "EQ", "Co", "xx"];
const VALUES = ['"a@example.com"', '"x"', '""', '"2020-01-01T00:00:00Z"', "true", "False", "null", "42", "-1.5", "jyoung", '"with \\"quote\\""', '"%_\\\\"', '"é"', '"unterminated', "1e999", '"\\u0000"'];
const JUNK = ["(", ")", "[", "]", '"', " and ", " or ", "not ", "not(", " pr", "\\", "\u0000", "💥", ".", ":", ","];

function attrExp(depth: number): string {
  const r = rand();
  if (r < 0.1 && depth < 4) return `emails[${filter(depth + 1).replace(/emails\.|name\./g, "")}]`;
  if (r < 0.2) return `${pick(ATTRS)} pr`;
  if (r < 0.6) return `${pick(GOOD_ATTRS)} ${pick(["eq", "ne", "co", "sw", "ew", "gt", "le"])} ${pick(['"seed1@example.com"', '"seed"', '"T"', '"work"', '"x"'])}`;
  return `${pick(ATTRS)} ${pick(OPS)} ${pick(VALUES)}`;
}
function filter(depth = 0): string {
  const r = rand();
  if (depth > 4 || r < 0.4) return attrExp(depth);
  if (r < 0.55) return `not (${filter(depth + 1)})`;
  if (r < 0.65) return `(${filter(depth + 1)})`;
  return `${filter(depth + 1)} ${pick(["and", "or", "AND", "Or"])} ${filter(depth + 1)}`;
}
function mutate(s: string): string {
  const chars = [...s];
  const n = 1 + Math.floor(rand() * 3);
  for (let i = 0; i < n; i++) {
    const at = Math.floor(rand() * (chars.length + 1));
    if (chance(0.5)) chars.splice(at, 1);
    else chars.splice(at, 0, pick(JUNK));
  }
  return chars.join("");
}

const SCALARS: unknown[] = ["", "x", "fuzz@example.com", "FUZZ@EXAMPLE.COM", "not-an-email", "True", "False", "collaborator", "read-only", "billing", "regular",
  0, 1, -1, 3.5, true, false, null, [], {}, ["a"], [{ value: "v@example.com" }], { value: "x" }, "x".repeat(61), "é".repeat(70), "\u0000"];
function randomValue(depth = 0): unknown {
  const r = rand();
  if (depth > 2 || r < 0.6) return pick(SCALARS);
  if (r < 0.8) return Array.from({ length: Math.floor(rand() * 3) }, () => randomValue(depth + 1));
  return randomObject(depth + 1);
}
const KEYS = ["userName", "name", "givenName", "familyName", "formatted", "displayName", "title", "userType", "active", "emails", "value", "type", "primary",
  "externalId", "schemas", "id", "meta", "Operations", "op", "path", "junk", "USERNAME", "name.givenName"];
function randomObject(depth = 0): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(rand() * 5); i > 0; i--) o[pick(KEYS)] = randomValue(depth);
  return o;
}
function randomUserBody(): unknown {
  if (chance(0.1)) return randomValue();
  const body: Record<string, unknown> = newUser(`fuzz${Math.floor(rand() * 400)}@example.com`, { userType: pick(["regular", "read-only", "billing"]) });
  if (chance(0.5)) for (let i = Math.floor(rand() * 4); i > 0; i--) body[pick(KEYS)] = randomValue();
  if (chance(0.3)) body.emails = [{ value: pick(["a@example.com", "bad", 5, null]), type: pick(["work", "home", 3, null]), primary: pick([true, "False", "x", null]) }];
  if (chance(0.3)) body.name = { givenName: pick(SCALARS), familyName: pick(SCALARS) };
  return body;
}
const PATHS = ["active", "userName", "title", "displayName", "externalId", "userType", "name", "name.givenName", "name.familyName", "name.formatted", "emails",
  'emails[type eq "work"].value', 'emails[type eq "work"]', 'emails[value co "@"].primary', "emails[type eq", "phoneNumbers", "id", "meta", "nope", "", null,
  "urn:ietf:params:scim:schemas:core:2.0:User:title", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", 'emails[type eq "work"].colour'];
function randomPatch(): unknown {
  if (chance(0.05)) return randomValue();
  const ops = Array.from({ length: Math.floor(rand() * 4) }, () => {
    if (chance(0.05)) return randomValue();
    const op: Record<string, unknown> = { op: pick(["add", "Add", "replace", "Replace", "REMOVE", "remove", "move", 1]) };
    if (chance(0.8)) op.path = pick(PATHS);
    if (chance(0.85)) op.value = chance(0.3) ? randomObject() : randomValue();
    return op;
  });
  return { schemas: [PATCH_SCHEMA], Operations: ops };
}

function checkAnswer(what: string, status: number, contentType: string | null, text: string) {
  if (status >= 500) throw new Error(`${what} → ${status}: ${text}`);
  if (status === 204) return;
  if (!contentType?.startsWith("application/scim+json")) throw new Error(`${what} → content-type ${contentType}`);
  const body = JSON.parse(text);
  if (status >= 400) {
    if (body.schemas?.[0] !== SCIM_ERROR || body.status !== String(status) || typeof body.detail !== "string") throw new Error(`${what} → bad error body ${text}`);
    return;
  }
  if (body.schemas?.[0] === LIST_SCHEMA) {
    if (typeof body.totalResults !== "number" || !Array.isArray(body.Resources)) throw new Error(`${what} → bad list ${text}`);
    for (const u of body.Resources) if (typeof u.id !== "string" || u.schemas?.[0] !== USER_SCHEMA) throw new Error(`${what} → bad user in list ${text}`);
    return;
  }
  if (body.schemas?.[0] !== USER_SCHEMA || typeof body.id !== "string" || typeof body.userName !== "string" || typeof body.active !== "boolean" || !/^\S+@\S+$/.test(body.userName))
    throw new Error(`${what} → bad resource ${text}`);
}

test("random filters and bodies never yield a 5xx, always a SCIM error or a valid resource; integrity_check ok", async () => {
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) {
    const r = await t.scim("POST", "/Users", newUser(`seed${i}@example.com`, { emails: [{ value: `seed${i}@example.com`, type: "work", primary: true }], title: chance(0.5) ? "T" : undefined }));
    ids.push((await r.json() as { id: string }).id);
  }
  let n = 0;
  const statuses = new Map<number, number>();
  const send = async (what: string, method: string, path: string, body?: unknown, raw?: string) => {
    const r = raw !== undefined
      ? await t.request(method, `/scim/v2${path}`, { rawBody: raw, headers: { authorization: `Bearer ${t.token}`, "content-type": "application/scim+json" } })
      : await t.scim(method, path, body);
    const text = await r.text();
    checkAnswer(what, r.status, r.headers.get("content-type"), text);
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    n++;
    return { status: r.status, text };
  };

  for (let i = 0; i < 2000; i++) {
    const f = chance(0.3) ? mutate(filter()) : filter();
    const extra = chance(0.2) ? `&sortBy=${encodeURIComponent(pick(ATTRS))}&sortOrder=${pick(["ascending", "descending", "up"])}` : "";
    const proj = chance(0.1) ? `&attributes=${encodeURIComponent(pick(ATTRS))}` : chance(0.1) ? `&excludedAttributes=${encodeURIComponent(pick(ATTRS))}` : "";
    const paging = chance(0.2) ? `&startIndex=${pick(["0", "-5", "3", "x", "99999999999999999999"])}&count=${pick(["0", "-1", "2", "1001", "y"])}` : "";
    await send(`GET filter=${f}`, "GET", `/Users?filter=${encodeURIComponent(f)}${extra}${proj}${paging}`);
  }
  for (let i = 0; i < 800; i++) {
    const body = randomUserBody();
    const { status, text } = await send(`POST ${JSON.stringify(body)}`, "POST", "/Users", body);
    if (status === 201) ids.push(JSON.parse(text).id);
  }
  for (let i = 0; i < 800; i++) {
    const body = randomPatch();
    await send(`PATCH ${JSON.stringify(body)}`, "PATCH", `/Users/${pick(ids)}`, body);
  }
  for (let i = 0; i < 400; i++) {
    const body = randomUserBody();
    await send(`PUT ${JSON.stringify(body)}`, "PUT", `/Users/${pick([...ids, "0", "x"])}`, body);
  }
  for (let i = 0; i < 200; i++) {
    const raw = mutate(JSON.stringify(chance(0.5) ? randomUserBody() : randomPatch()));
    await send(`raw ${raw}`, pick(["POST", "PATCH", "PUT"]), pick(["/Users", `/Users/${pick(ids)}`]), undefined, raw);
  }
  for (let i = 0; i < 50; i++) await send("DELETE", "DELETE", `/Users/${pick([...ids, "999999"])}`);

  if (process.env.FUZZ_VERBOSE) console.log(n, [...statuses]);
  expect(n).toBeGreaterThan(4000);
  // the fuzz must exercise both outcomes, or it proves nothing
  expect(statuses.get(200) ?? 0).toBeGreaterThan(100);
  expect(statuses.get(400) ?? 0).toBeGreaterThan(100);
  // The engine's own checks: SQLite verifies its file and its foreign keys only when asked (PostgreSQL enforces them on every write).
  if (t.ctx.sqlite) {
    expect((t.ctx.sqlite.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check).toBe("ok");
    expect(t.ctx.sqlite.query("PRAGMA foreign_key_check").all()).toEqual([]);
  }
  const rows = async <Row>(query: SQL) => rowsOf<Row>(t.ctx.db, query);
  // stored invariants: unique keys match names; at most one primary e-mail per user; seats respected
  for (const u of await rows<{ name: string; key: string }>(sql`SELECT user_name AS name, user_name_key AS key FROM users`)) expect(u.key).toBe(caseFoldKey(u.name));
  expect(await rows(sql`SELECT user_id FROM user_emails WHERE is_primary = 1 GROUP BY user_id HAVING count(*) > 1`)).toEqual([]);
  expect(Number((await rows<{ n: number }>(sql`SELECT count(*) AS n FROM users WHERE active = 1 AND user_type = 'regular'`))[0]!.n)).toBeLessThanOrEqual(40);
  // users.emails (what responses render) is exactly user_emails (what filters read), in order
  const emails = await rows<{ user_id: number; value: string; type: string | null; is_primary: number }>(sql`SELECT user_id, value, type, is_primary FROM user_emails ORDER BY user_id, position`);
  const expected = new Map<number, unknown[]>();
  for (const r of emails) (expected.get(r.user_id) ?? expected.set(r.user_id, []).get(r.user_id)!).push({ value: r.value, ...(r.type !== null ? { type: r.type } : {}), primary: r.is_primary === 1 });
  const stored = await rows<{ id: number; emails: string }>(sql`SELECT id, emails FROM users`);
  expect(stored.length).toBeGreaterThan(30);
  for (const u of stored) expect({ id: u.id, emails: JSON.parse(u.emails) }).toEqual({ id: u.id, emails: expected.get(u.id) ?? [] });
}, 120_000);
