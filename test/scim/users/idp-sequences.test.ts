import { describe, expect, test } from "bun:test";
import { createScimTestApp, newUser } from "../helpers";
import { entraDefault, entraFlagged, okta, replay } from "./fixtures/idp";

describe("recorded IdP sequences", () => {
  test("Microsoft Entra ID, default PATCH dialect", async () => {
    const app = await createScimTestApp();
    try {
      await replay(entraDefault, app);
    } finally {
      app.close();
    }
  });

  test("Microsoft Entra ID, aadOptscim062020 dialect", async () => {
    const app = await createScimTestApp();
    try {
      await replay(entraFlagged, app);
    } finally {
      app.close();
    }
  });

  test("Okta (duplicate status 409 as Okta expects)", async () => {
    const app = await createScimTestApp({ scimDuplicateStatus: 409 });
    try {
      await replay(okta, app);
    } finally {
      app.close();
    }
  });

  test("Okta import paging: startIndex=1&count=100, then 101, over 250 users", async () => {
    const app = await createScimTestApp();
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
  }, 30_000); // 250 creates, one at a time: seconds on PostgreSQL under load
});
