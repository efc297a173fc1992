import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp } from "../../helpers";

const t = createTestApp();
afterAll(() => t.close());
let token: string;
const titles = ["100% done", "1000 done", "snake_case", "snakeXcase", "back\\slash", "backslash", "plain"];

beforeAll(async () => {
  token = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "search" })).json()) as any).token;
  expect((await t.request("POST", "/api/v1/project", { body: { title: "Search", code: "SRCH" }, headers: { token } })).status).toBe(200);
  expect((await t.request("POST", "/api/v1/case/SRCH/bulk", { body: { cases: titles.map((title) => ({ title })) }, headers: { token } })).status).toBe(200);
});

test.each([
  ["%", ["100% done"]],
  ["0%", ["100% done"]],
  ["_", ["snake_case"]],
  ["e_c", ["snake_case"]],
  ["\\", ["back\\slash"]],
  ["SNAKE", ["snake_case", "snakeXcase"]],
])("v1 case search %j matches %j literally (LIKE … ESCAPE)", async (search, expected) => {
  const r = (await (await t.request("GET", `/api/v1/case/SRCH?search=${encodeURIComponent(search)}&limit=100`, { headers: { token } })).json()) as any;
  expect(r.result.entities.map((c: any) => c.title).sort()).toEqual([...expected].sort());
});
