import { afterAll, describe, expect, test } from "bun:test";
import { createScimTestApp, expectScimError, json, LIST_SCHEMA, newUser, PATCH_SCHEMA, USER_SCHEMA } from "../helpers";
import { sql } from "drizzle-orm";
import { execute, rowsOf } from "../../../src/db/statement";
import { writeTransaction } from "../../../src/db/transaction";
import { users } from "../../../src/directory/tables";

const t = await createScimTestApp();
afterAll(() => t.close());

describe("POST /Users", () => {
  test("201 with Location and the full resource", async () => {
    const r = await t.scim("POST", "/Users", newUser("Alice@Example.com", { externalId: "ext-alice", title: "QA lead", emails: [{ value: "alice@example.com", type: "work", primary: true }] }));
    expect(r.status).toBe(201);
    expect(r.headers.get("content-type")).toStartWith("application/scim+json");
    const u = await json(r);
    const snapshot = structuredClone(u);
    expect(u.id).toMatch(/^\d+$/);
    expect(r.headers.get("location")).toBe(`https://gatehouse.test/scim/v2/Users/${u.id}`);
    expect(u).toMatchObject({
      schemas: [USER_SCHEMA],
      externalId: "ext-alice",
      userName: "Alice@Example.com",
      name: { givenName: "Given", familyName: "Family" },
      displayName: "Given Family",
      active: true,
      userType: "regular",
      title: "QA lead",
      emails: [{ value: "alice@example.com", type: "work", primary: true }],
      meta: { resourceType: "User", location: `https://gatehouse.test/scim/v2/Users/${u.id}` },
    });
    expect(Date.parse(u.meta.created)).toBeGreaterThan(0);
    expect(u.meta.lastModified).toBe(u.meta.created);
    const got = await json(await t.scim("GET", `/Users/${u.id}`));
    expect(got).toEqual(snapshot);
  });

  test("every new user gets the default role", async () => {
    const u = await json(await t.scim("POST", "/Users", newUser("role@example.com")));
    const [row] = await rowsOf<{ role: string }>(t.ctx.db, sql`SELECT role FROM users WHERE id = ${Number(u.id)}`);
    expect(row.role).toBe("member");
  });

  test("userName must be an e-mail; name parts required and at most 60 characters", async () => {
    await expectScimError(await t.scim("POST", "/Users", newUser("not-an-email")), 400, "invalidValue");
    await expectScimError(await t.scim("POST", "/Users", { schemas: [USER_SCHEMA], userName: "n@example.com" }), 400, "invalidValue");
    await expectScimError(await t.scim("POST", "/Users", newUser("n@example.com", { name: { givenName: "x".repeat(61), familyName: "F" } })), 400, "invalidValue");
    await expectScimError(await t.scim("POST", "/Users", newUser("n@example.com", { name: { givenName: "G", familyName: "y".repeat(61) } })), 400, "invalidValue");
    expect((await t.scim("POST", "/Users", newUser("sixty@example.com", { name: { givenName: "x".repeat(60), familyName: "é".repeat(60) } }))).status).toBe(201);
  });

  test("userType: default regular, read-only and billing accepted, collaborator and others → 400 invalidValue", async () => {
    expect((await json(await t.scim("POST", "/Users", newUser("ro@example.com", { userType: "read-only" })))).userType).toBe("read-only");
    expect((await json(await t.scim("POST", "/Users", newUser("bill@example.com", { userType: "billing" })))).userType).toBe("billing");
    const c = await expectScimError(await t.scim("POST", "/Users", newUser("collab@example.com", { userType: "collaborator" })), 400, "invalidValue");
    expect(c.detail).toContain("collaborator");
    await expectScimError(await t.scim("POST", "/Users", newUser("admin@example.com", { userType: "admin" })), 400, "invalidValue");
  });

  test("duplicate userName (case-insensitive) → 400 invalidValue by default", async () => {
    await t.scim("POST", "/Users", newUser("dup@example.com"));
    const e = await expectScimError(await t.scim("POST", "/Users", newUser("DUP@example.COM")), 400, "invalidValue");
    expect(e.detail).toContain("already taken");
  });

  test("duplicate with GATEHOUSE_SCIM_DUPLICATE_STATUS=409 → 409 uniqueness", async () => {
    const o = await createScimTestApp({ scimDuplicateStatus: 409 });
    try {
      await o.scim("POST", "/Users", newUser("dup@example.com"));
      await expectScimError(await o.scim("POST", "/Users", newUser("Dup@Example.com")), 409, "uniqueness");
    } finally {
      o.close();
    }
  });

  test("wrong types → 400 invalidValue; unknown attributes ignored; names are case-insensitive", async () => {
    await expectScimError(await t.scim("POST", "/Users", newUser("types@example.com", { active: 3 })), 400, "invalidValue");
    await expectScimError(await t.scim("POST", "/Users", newUser("types@example.com", { emails: "x" })), 400, "invalidValue");
    await expectScimError(await t.scim("POST", "/Users", { schemas: [USER_SCHEMA], userName: 42, name: { givenName: "a", familyName: "b" } }), 400, "invalidValue");
    await expectScimError(await t.scim("POST", "/Users", []), 400, "invalidValue");
    const r = await t.scim("POST", "/Users", {
      schemas: [USER_SCHEMA, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
      UserName: "cased@example.com",
      NAME: { GivenName: "Case", familyname: "Insensitive" },
      favouriteColour: "teal",
      phoneNumbers: [{ value: "+1 555", type: "work" }],
      "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { department: "QA" },
    });
    expect(r.status).toBe(201);
    const u = await json(r);
    expect(u.userName).toBe("cased@example.com");
    expect(u.name).toEqual({ givenName: "Case", familyName: "Insensitive" });
    expect(u.favouriteColour).toBeUndefined();
  });

  test("display name rule: displayName, else name.formatted, else given + family", async () => {
    const a = await json(await t.scim("POST", "/Users", newUser("dn1@example.com", { displayName: "Shown Name" })));
    expect(a.displayName).toBe("Shown Name");
    const b = await json(await t.scim("POST", "/Users", newUser("dn2@example.com", { name: { givenName: "Ada", familyName: "Lovelace", formatted: "Countess Ada" } })));
    expect(b.displayName).toBe("Countess Ada");
    const c = await json(await t.scim("POST", "/Users", newUser("dn3@example.com", { name: { givenName: "Ada", familyName: "Lovelace", formatted: "" } })));
    expect(c.displayName).toBe("Ada Lovelace");
  });
});

describe("GET, PUT, DELETE /Users/{id}", () => {
  test("unknown ids → 404 SCIM error", async () => {
    for (const id of ["999999", "abc", "0x10", "-1"]) {
      await expectScimError(await t.scim("GET", `/Users/${id}`), 404);
      await expectScimError(await t.scim("PUT", `/Users/${id}`, newUser("x@example.com")), 404);
      await expectScimError(await t.scim("PATCH", `/Users/${id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "active", value: false }] }), 404);
      await expectScimError(await t.scim("DELETE", `/Users/${id}`), 404);
    }
  });

  test("DELETE deactivates: 204, GET shows active false, lists still include it", async () => {
    const u = await json(await t.scim("POST", "/Users", newUser("leaver@example.com")));
    const d = await t.scim("DELETE", `/Users/${u.id}`);
    expect(d.status).toBe(204);
    expect(await d.text()).toBe("");
    const got = await json(await t.scim("GET", `/Users/${u.id}`));
    expect(got.active).toBe(false);
    expect(got.userName).toBe("leaver@example.com");
    const list = await json(await t.scim("GET", `/Users?filter=${encodeURIComponent('userName eq "leaver@example.com"')}`));
    expect(list.totalResults).toBe(1);
    expect(list.Resources[0].active).toBe(false);
    expect((await t.scim("DELETE", `/Users/${u.id}`)).status).toBe(204); // idempotent
  });

  test("PUT replaces: omitted attributes are cleared, userType defaults to regular, active kept when omitted", async () => {
    const u = await json(await t.scim("POST", "/Users", newUser("put@example.com", { title: "Boss", userType: "billing", externalId: "e1", emails: [{ value: "put@example.com", primary: true }] })));
    const r = await t.scim("PUT", `/Users/${u.id}`, { schemas: [USER_SCHEMA], id: u.id, userName: "put2@example.com", name: { givenName: "New", familyName: "Name" } });
    expect(r.status).toBe(200);
    const v = await json(r);
    expect(v).toMatchObject({ userName: "put2@example.com", userType: "regular", active: true, displayName: "New Name" });
    expect(v.title).toBeUndefined();
    expect(v.externalId).toBeUndefined();
    expect(v.emails).toBeUndefined();
    expect(v.meta.created).toBe(u.meta.created);
    await expectScimError(await t.scim("PUT", `/Users/${u.id}`, newUser("put@example.com", { userType: "collaborator" })), 400, "invalidValue");
  });

  test("PUT to another user's userName → duplicate; to own name in another case → fine", async () => {
    const a = await json(await t.scim("POST", "/Users", newUser("owner-a@example.com")));
    await t.scim("POST", "/Users", newUser("owner-b@example.com"));
    await expectScimError(await t.scim("PUT", `/Users/${a.id}`, newUser("Owner-B@example.com")), 400, "invalidValue");
    expect((await json(await t.scim("PUT", `/Users/${a.id}`, newUser("OWNER-A@example.com")))).userName).toBe("OWNER-A@example.com");
  });

  test("attributes and excludedAttributes on GET", async () => {
    const u = await json(await t.scim("POST", "/Users", newUser("proj@example.com", { emails: [{ value: "proj@example.com", type: "work", primary: true }] })));
    const a = await json(await t.scim("GET", `/Users/${u.id}?attributes=userName,name.familyName,emails.value`));
    expect(a).toEqual({ schemas: [USER_SCHEMA], id: u.id, userName: "proj@example.com", name: { familyName: "Family" }, emails: [{ value: "proj@example.com" }] });
    const b = await json(await t.scim("GET", `/Users/${u.id}?excludedAttributes=emails,meta,name.givenName,id`));
    expect(b.emails).toBeUndefined();
    expect(b.meta).toBeUndefined();
    expect(b.id).toBe(u.id); // returned: always
    expect(b.name).toEqual({ familyName: "Family" });
    const c = await json(await t.scim("GET", `/Users/${u.id}?attributes=urn:ietf:params:scim:schemas:core:2.0:User:userName`));
    expect(c).toEqual({ schemas: [USER_SCHEMA], id: u.id, userName: "proj@example.com" });
  });
});

describe("seat limit", () => {
  test("creating or reactivating a regular user over GATEHOUSE_LICENSE_SEATS → 409; deactivation frees the seat", async () => {
    const s = await createScimTestApp({ licenseSeats: 2 });
    try {
      const a = await json(await s.scim("POST", "/Users", newUser("s1@example.com")));
      await s.scim("POST", "/Users", newUser("s2@example.com"));
      await expectScimError(await s.scim("POST", "/Users", newUser("s3@example.com")), 409);
      // read-only and billing seats are not limited; inactive users hold no seat
      const ro = await json(await s.scim("POST", "/Users", newUser("s4@example.com", { userType: "read-only" })));
      expect(ro.id).toBeDefined();
      expect((await s.scim("POST", "/Users", newUser("s5@example.com", { active: false }))).status).toBe(201);
      // promoting read-only to regular needs a seat
      await expectScimError(await s.scim("PATCH", `/Users/${ro.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "userType", value: "regular" }] }), 409);
      const settings = await json(await s.admin("GET", "/api/admin/scim"));
      expect(settings).toEqual({ enabled: true, seats: { limit: 2, regular: 2, readOnly: 1, billing: 0 } });
      expect((await s.scim("DELETE", `/Users/${a.id}`)).status).toBe(204);
      expect((await s.scim("POST", "/Users", newUser("s3@example.com"))).status).toBe(201);
      // a's seat is gone again: reactivating a → 409
      await expectScimError(await s.scim("PATCH", `/Users/${a.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "Replace", path: "active", value: "True" }] }), 409);
      expect((await json(await s.scim("GET", `/Users/${a.id}`))).active).toBe(false);
    } finally {
      s.close();
    }
  });
});

describe("list", () => {
  test("ListResponse shape, paging, count=0, stable order", async () => {
    const o = await createScimTestApp();
    try {
      for (let i = 0; i < 7; i++) await o.scim("POST", "/Users", newUser(`p${i}@example.com`));
      const all = await json(await o.scim("GET", "/Users"));
      expect(all).toMatchObject({ schemas: [LIST_SCHEMA], totalResults: 7, itemsPerPage: 7, startIndex: 1 });
      expect(all.Resources.map((u: any) => u.userName)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `p${i}@example.com`));
      const page = await json(await o.scim("GET", "/Users?startIndex=3&count=2"));
      expect(page).toMatchObject({ totalResults: 7, itemsPerPage: 2, startIndex: 3 });
      expect(page.Resources.map((u: any) => u.userName)).toEqual(["p2@example.com", "p3@example.com"]);
      const zero = await json(await o.scim("GET", "/Users?count=0"));
      expect(zero).toMatchObject({ totalResults: 7, itemsPerPage: 0, Resources: [] });
      const below = await json(await o.scim("GET", "/Users?startIndex=-4&count=1"));
      expect(below.startIndex).toBe(1);
      expect(below.totalResults).toBe(7); // a full first page still counts
      expect(below.Resources[0].userName).toBe("p0@example.com");
      const past = await json(await o.scim("GET", "/Users?startIndex=100"));
      expect(past).toMatchObject({ totalResults: 7, itemsPerPage: 0, Resources: [] });
      expect((await json(await o.scim("GET", "/Users?count=5000"))).itemsPerPage).toBe(7);
      await expectScimError(await o.scim("GET", "/Users?count=many"), 400, "invalidValue");
      await expectScimError(await o.scim("GET", "/Users?sortOrder=sideways"), 400, "invalidValue");
      const desc = await json(await o.scim("GET", "/Users?sortBy=userName&sortOrder=descending&count=2"));
      expect(desc.Resources.map((u: any) => u.userName)).toEqual(["p6@example.com", "p5@example.com"]);
      const ex = await json(await o.scim("GET", "/Users?excludedAttributes=emails,name&count=1"));
      expect(ex.Resources[0].name).toBeUndefined();
      expect(ex.Resources[0].id).toBeDefined();
    } finally {
      o.close();
    }
  });

  test("count is capped at 1000", async () => {
    const o = await createScimTestApp();
    try {
      const now = new Date().toISOString();
      const rows = Array.from({ length: 1005 }, (_, i) => ({ userName: `bulk${i}@example.com`, userNameKey: `bulk${i}@example.com`, displayName: `Bulk ${i}`, createdAt: now, updatedAt: now }));
      await writeTransaction(o.ctx.db, async (tx) => {
        for (let i = 0; i < rows.length; i += 500) await tx.insert(users).values(rows.slice(i, i + 500));
      });
      const r = await json(await o.scim("GET", "/Users?count=1001"));
      expect(r.totalResults).toBe(1005);
      expect(r.itemsPerPage).toBe(1000);
    } finally {
      o.close();
    }
  });

  test("sortBy name.familyName and meta.created; unknown sortBy → 400", async () => {
    const o = await createScimTestApp();
    try {
      for (const [u, f] of [["c@x.io", "Zeta"], ["a@x.io", "alpha"], ["b@x.io", "Mu"]]) {
        await o.scim("POST", "/Users", newUser(u!, { name: { givenName: "G", familyName: f } }));
        await Bun.sleep(3); // distinct meta.created milliseconds
      }
      const byFamily = await json(await o.scim("GET", "/Users?sortBy=name.familyName"));
      expect(byFamily.Resources.map((u: any) => u.name.familyName)).toEqual(["alpha", "Mu", "Zeta"]);
      const byCreated = await json(await o.scim("GET", "/Users?sortBy=meta.created&sortOrder=descending"));
      expect(byCreated.Resources.map((u: any) => u.userName)).toEqual(["b@x.io", "a@x.io", "c@x.io"]);
      const byEmail = await json(await o.scim("GET", "/Users?sortBy=EMAILS.value"));
      expect(byEmail.totalResults).toBe(3);
      await expectScimError(await o.scim("GET", "/Users?sortBy=shoeSize"), 400, "invalidValue");
    } finally {
      o.close();
    }
  });
});

describe("onUserDeactivated hook", () => {
  test("runs in the deactivating transaction on DELETE and PATCH active=false; a throw aborts the deactivation", async () => {
    const { onUserDeactivated } = await import("../../../src/directory/users");
    const calls: number[] = [];
    let fail = false;
    const off = onUserDeactivated((tx, userId) => {
      calls.push(userId);
      if (fail) throw new Error("group cleanup failed");
    });
    try {
      const a = await json(await t.scim("POST", "/Users", newUser("hook-a@example.com")));
      const b = await json(await t.scim("POST", "/Users", newUser("hook-b@example.com")));
      expect((await t.scim("DELETE", `/Users/${a.id}`)).status).toBe(204);
      expect((await t.scim("DELETE", `/Users/${a.id}`)).status).toBe(204); // already inactive: no second call
      expect((await t.scim("PATCH", `/Users/${b.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "Replace", path: "active", value: "False" }] })).status).toBe(200);
      expect(calls).toEqual([Number(a.id), Number(b.id)]);
      // reactivate b, then make the hook fail: the deactivation must roll back (and never be a 500 body leak of internals)
      await t.scim("PATCH", `/Users/${b.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "active", value: true }] });
      fail = true;
      const r = await t.scim("DELETE", `/Users/${b.id}`);
      expect(r.status).toBe(500);
      expect(await r.text()).not.toContain("group cleanup failed");
      expect((await json(await t.scim("GET", `/Users/${b.id}`))).active).toBe(true);
    } finally {
      off();
    }
  });
});

test("lists carry each user's own e-mails, for dense pages and for sparse filter results", async () => {
  const o = await createScimTestApp();
  try {
    for (let i = 0; i < 12; i++)
      await o.scim("POST", "/Users", newUser(`m${i}@example.com`, { emails: [{ value: `m${i}@work.example`, type: "work", primary: true }, { value: `m${i}@home.example`, type: "home" }] }));
    const dense = await json(await o.scim("GET", "/Users?count=5&startIndex=3"));
    for (const u of dense.Resources) expect(u.emails.map((e: any) => e.value)).toEqual([`${u.userName.split("@")[0]}@work.example`, `${u.userName.split("@")[0]}@home.example`]);
    const sparse = await json(await o.scim("GET", `/Users?filter=${encodeURIComponent('userName eq "m0@example.com" or userName eq "m11@example.com"')}`));
    expect(sparse.totalResults).toBe(2);
    for (const u of sparse.Resources) expect(u.emails[0].value).toBe(`${u.userName.split("@")[0]}@work.example`);
  } finally {
    o.close();
  }
});

test("the OpenAPI document describes the /Users request bodies", async () => {
  const doc = await json(await t.request("GET", "/openapi/json"));
  for (const [path, method] of [["/scim/v2/Users", "post"], ["/scim/v2/Users/{id}", "put"], ["/scim/v2/Users/{id}", "patch"]] as const)
    expect(doc.paths[path][method].requestBody.content["application/json"].schema.type).toBe("object");
  expect(doc.paths["/api/admin/scim-tokens"].post.requestBody.content["application/json"]).toBeDefined();
});
