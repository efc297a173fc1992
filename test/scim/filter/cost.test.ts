import { afterAll, expect, test } from "bun:test";
import { assertFilterCost, countTerms, isAnchored, parseFilter } from "../../../src/scim/filter";
import { createScimTestApp, expectScimError, json } from "../helpers";
import { writeTransaction } from "../../../src/db/transaction";
import { users } from "../../../src/directory/tables";

const probe = (n: { attr: { name: string }; compare: string }) => n.compare === "eq" && n.attr.name.toLowerCase() === "username";
const terms = (n: number, op = "and") => Array.from({ length: n }, (_, i) => `not (emails co "q${i}")`).join(` ${op} `);

test("countTerms counts comparisons, also inside not and value paths", () => {
  expect(countTerms(parseFilter('userName eq "a" and (title pr or not (emails[type eq "work" and value co "x"]))'))).toBe(4);
});

test("isAnchored: an index probe in the top-level and chain, not under or/not", () => {
  expect(isAnchored(parseFilter('title pr and userName eq "a"'), probe)).toBe(true);
  expect(isAnchored(parseFilter('title pr or userName eq "a"'), probe)).toBe(false);
  expect(isAnchored(parseFilter('not (userName eq "a")'), probe)).toBe(false);
  expect(isAnchored(parseFilter('userName co "a"'), probe)).toBe(false);
});

test("assertFilterCost: terms × rows against the budget; anchored filters always pass", () => {
  expect(() => assertFilterCost(parseFilter(terms(200)), 30_000, probe)).toThrow(/too costly/);
  expect(() => assertFilterCost(parseFilter(terms(5)), 30_000, probe)).not.toThrow();
  expect(() => assertFilterCost(parseFilter(`userName eq "x" and (${terms(199)})`), 30_000, probe)).not.toThrow();
  expect(() => assertFilterCost(parseFilter(terms(200)), 500, probe)).not.toThrow();
});

const t = await createScimTestApp();
afterAll(() => t.close());

test("through the API: a costly legal filter → 400 invalidFilter saying why; the anchored and the cheap ones answer", async () => {
  const at = "2026-01-01T00:00:00.000Z";
  const rows = Array.from({ length: 5000 }, (_, i) => ({ userName: `user${i}@example.com`, userNameKey: `user${i}@example.com`, displayName: `user${i}@example.com`, createdAt: at, updatedAt: at }));
  await writeTransaction(t.ctx.db, async (tx) => {
    for (let i = 0; i < rows.length; i += 500) await tx.insert(users).values(rows.slice(i, i + 500));
  });
  const list = (filter: string) => t.scim("GET", `/Users?filter=${encodeURIComponent(filter)}&count=5`);
  const refused = await expectScimError(await list(terms(200)), 400, "invalidFilter");
  expect(refused.detail).toContain("too costly");
  expect(refused.detail).toContain("userName");
  expect((await list(`userName eq "user7@example.com" and (${terms(100)})`)).status).toBe(200);
  const cheap = await json(await list('userName sw "user1"'));
  expect(cheap.totalResults).toBe(1111);
});
