import { describe, expect, test } from "bun:test";
import { createScimTestApp, newUser, SCIM_ERROR } from "../helpers";
import { entraDefault, entraFlagged, okta, type Step } from "./fixtures/idp";

async function replay(steps: Step[], app: ReturnType<typeof createScimTestApp>) {
  const ids: Record<string, string> = {};
  const fill = (s: string) => s.replace(/\{(\w+)\}/g, (_, k) => ids[k] ?? `{${k}}`);
  for (const step of steps) {
    const body = step.body === undefined ? undefined : JSON.parse(fill(JSON.stringify(step.body)));
    const r = await app.scim(step.method, fill(step.path), body, step.headers);
    const text = await r.text();
    if (r.status !== step.status) throw new Error(`${step.name}: expected ${step.status}, got ${r.status}: ${text}`);
    if (r.status !== 204) expect(r.headers.get("content-type")).toStartWith("application/scim+json");
    const parsed = text ? JSON.parse(text) : null;
    if (r.status >= 400) expect(parsed.schemas).toEqual([SCIM_ERROR]);
    if (step.check && !step.check(parsed)) throw new Error(`${step.name}: check failed on ${text}`);
    if (step.saveId) {
      ids[step.saveId] = parsed.id;
      expect(r.headers.get("location")).toBe(`https://gatehouse.test/scim/v2/Users/${parsed.id}`);
    }
  }
}

describe("recorded IdP sequences", () => {
  test("Microsoft Entra ID, default PATCH dialect", async () => {
    const app = createScimTestApp();
    try {
      await replay(entraDefault, app);
    } finally {
      app.close();
    }
  });

  test("Microsoft Entra ID, aadOptscim062020 dialect", async () => {
    const app = createScimTestApp();
    try {
      await replay(entraFlagged, app);
    } finally {
      app.close();
    }
  });

  test("Okta (duplicate status 409 as Okta expects)", async () => {
    const app = createScimTestApp({ scimDuplicateStatus: 409 });
    try {
      await replay(okta, app);
    } finally {
      app.close();
    }
  });

  test("Okta import paging: startIndex=1&count=100, then 101, over 250 users", async () => {
    const app = createScimTestApp();
    try {
      for (let i = 0; i < 250; i++) await app.scim("POST", "/Users", newUser(`import${String(i).padStart(3, "0")}@okta.local`));
      const seen: string[] = [];
      for (let start = 1; ; start += 100) {
        const r = await app.scim("GET", `/Users?startIndex=${start}&count=100`);
        const b = JSON.parse(await r.text());
        expect(b.totalResults).toBe(250);
        expect(b.startIndex).toBe(start);
        seen.push(...b.Resources.map((u: { userName: string }) => u.userName));
        if (b.Resources.length < 100) break;
      }
      expect(seen).toHaveLength(250);
      expect(new Set(seen).size).toBe(250);
    } finally {
      app.close();
    }
  });
});
