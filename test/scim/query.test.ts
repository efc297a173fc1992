import { describe, expect, test } from "bun:test";
import { parseListParams, parseProjectionParams, queryOf } from "../../src/scim/query";

/** What URLSearchParams makes of the same query (the reference queryOf must match). */
function reference(query: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(query)) out[k] = v;
  return out;
}
const at = (query: string) => queryOf(new Request(`http://localhost/scim/v2/Users?${query}`));

describe("queryOf", () => {
  test("decodes form encoding: + is a space, %XX is UTF-8, last repeated key wins", () => {
    expect(at(`filter=${encodeURIComponent('userName eq "ß@x.example"')}&count=5&count=7&a+b=c+d&empty=&flag`)).toEqual({
      filter: 'userName eq "ß@x.example"',
      count: "7",
      "a b": "c d",
      empty: "",
      flag: "",
    });
    expect(queryOf(new Request("http://localhost/scim/v2/Users"))).toEqual({});
  });

  test("malformed escapes are decoded leniently, never thrown", () => {
    for (const q of ["filter=%", "filter=%zz", "a=%E0%A4%A", "x=%C3", "%=1", "a=%25%", "a=%ff%fe"]) expect(at(q)).toEqual(reference(q));
  });

  test("matches URLSearchParams on random queries", () => {
    // seeded generator: the same cases every run
    let seed = 20261122;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
    const alphabet = ["a", "b", "=", "&", "+", "%", "2", "0", "4", "1", "C", "3", "A", "9", "f", "%20", "%2B", "%26", "%3D", "%C3%A9", "%E2%82%AC", "%F0%9F%98%80", "é", " ", '"', "#"];
    for (let i = 0; i < 3000; i++) {
      let q = "";
      for (let n = rand(24); n > 0; n--) q += alphabet[rand(alphabet.length)];
      const request = new Request(`http://localhost/x?${q}`);
      const seen = new URL(request.url).search.slice(1); // the query as the request carries it
      expect(queryOf(request)).toEqual(reference(seen));
    }
  });
});

test("query keys from the request are plain keys, never the prototype", () => {
  const q = queryOf(new Request("http://localhost/scim/v2/Users?__proto__=x&constructor=y&count=2&attributes=userName"));
  expect(Object.getPrototypeOf(q)).toBeNull();
  expect(Object.hasOwn(q, "__proto__") && q["__proto__"]).toBe("x");
  expect(q.constructor as unknown).toBe("y");
  expect(parseListParams(q)).toMatchObject({ count: 2, startIndex: 1 });
  expect(parseProjectionParams(q).attributes).toEqual([{ name: "userName" }]);
  expect(parseProjectionParams(queryOf(new Request("http://localhost/scim/v2/Users/1")))).toEqual({});
});
