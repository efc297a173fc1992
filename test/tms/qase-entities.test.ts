import { afterAll, beforeAll, expect, test } from "bun:test";
import { tmsHarness, type Harness } from "./harness";

// Environments, configurations, run external issues, system fields, users and authors: the
// entities the Qase reporters and @qase/mcp-server look up.
let h: Harness;
beforeAll(async () => {
  h = await tmsHarness();
  await h.api("POST", "/project", { title: "Entities", code: "QE" });
  await h.api("POST", "/project", { title: "Other", code: "QO" });
});
afterAll(() => h.close());

const ok = async (method: string, path: string, body?: unknown) => {
  const r = await h.api(method, path, body);
  if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.result;
};

test("environments: CRUD, lookup by slug as the reporters do it, unique slugs", async () => {
  const id = (await ok("POST", "/environment/QE", { title: "Staging", slug: "staging", host: "stage.example" })).id;
  await ok("POST", "/environment/QE", { title: "Production", slug: "prod" });
  const dup = await h.api("POST", "/environment/QE", { title: "Again", slug: "staging" });
  expect(dup.status).toBe(409);
  const bySlug = await ok("GET", "/environment/QE?slug=staging&limit=100");
  expect(bySlug).toMatchObject({ total: 2, filtered: 1, entities: [{ id, title: "Staging", slug: "staging", host: "stage.example", description: null }] });
  expect((await ok("GET", "/environment/QE?search=prod")).entities.map((e: any) => e.slug)).toEqual(["prod"]);
  await ok("PATCH", `/environment/QE/${id}`, { description: "pre-release" });
  expect((await ok("GET", `/environment/QE/${id}`)).description).toBe("pre-release");
  // Another project's environment is not found here.
  expect((await h.api("GET", `/environment/QO/${id}`)).status).toBe(404);
  expect((await h.api("POST", "/environment/QE", { title: "Bad", slug: "has space" })).body.error.field).toBe("slug");
});

test("runs take environment_id (of the project) or a slug, and show the environment", async () => {
  const env = (await ok("GET", "/environment/QE?slug=staging")).entities[0];
  const byId = (await ok("POST", "/run/QE", { title: "r1", environment_id: env.id })).id;
  expect((await ok("GET", `/run/QE/${byId}`)).environment).toMatchObject({ id: env.id, slug: "staging", title: "Staging" });
  const bySlug = (await ok("POST", "/run/QE", { title: "r2", environment_slug: "staging" })).id;
  expect((await ok("GET", `/run/QE/${bySlug}`)).environment.id).toBe(env.id);
  const free = (await ok("POST", "/run/QE", { title: "r3", environment_slug: "nightly" })).id;
  expect((await ok("GET", `/run/QE/${free}`)).environment).toMatchObject({ id: null, slug: "nightly" });
  await h.expectEvent("run.started", (p) => p.id === byId && p.environment === "staging");
  const bad = await h.api("POST", "/run/QO", { title: "x", environment_id: env.id });
  expect([bad.status, bad.body.error.field]).toEqual([400, "environment_id"]);
  // Deleting the environment keeps the runs and their slug.
  await ok("DELETE", `/environment/QE/${env.id}`);
  expect((await ok("GET", `/run/QE/${byId}`)).environment).toMatchObject({ id: null, slug: "staging" });
});

test("configurations: groups with values, named by runs", async () => {
  const browser = (await ok("POST", "/configuration/QE/group", { title: "Browser" })).id;
  const chrome = (await ok("POST", "/configuration/QE", { title: "Chrome", group_id: browser })).id;
  const firefox = (await ok("POST", "/configuration/QE", { title: "Firefox", group_id: browser })).id;
  expect((await h.api("POST", "/configuration/QE/group", { title: "Browser" })).status).toBe(409);
  expect((await h.api("POST", "/configuration/QE", { title: "Chrome", group_id: browser })).status).toBe(409);
  expect((await h.api("POST", "/configuration/QO", { title: "x", group_id: browser })).body.error.field).toBe("group_id");
  expect(await ok("GET", "/configuration/QE")).toEqual({
    total: 1, filtered: 1, count: 1, entities: [{ id: browser, title: "Browser", configurations: [{ id: chrome, title: "Chrome" }, { id: firefox, title: "Firefox" }] }],
  });
  const run = (await ok("POST", "/run/QE", { title: "conf", configurations: [firefox, chrome] })).id;
  expect((await ok("GET", `/run/QE/${run}`)).configurations).toEqual([firefox, chrome]);
  const bad = await h.api("POST", "/run/QO", { title: "x", configurations: [chrome] });
  expect([bad.status, bad.body.error.field]).toEqual([400, "configurations"]);
});

test("run external issues: linked, replaced, removed; runs of the project only", async () => {
  const run = (await ok("POST", "/run/QE", { title: "ext" })).id;
  await ok("POST", "/run/QE/external-issue", { type: "jira-cloud", links: [{ run_id: run, external_issue: "https://acme.atlassian.net/browse/QA-1" }] });
  expect((await ok("GET", `/run/QE/${run}`)).external_issue).toEqual({ id: "https://acme.atlassian.net/browse/QA-1", type: "jira-cloud", link: "https://acme.atlassian.net/browse/QA-1" });
  await ok("POST", "/run/QE/external-issue", { type: "jira-server", links: [{ run_id: run, external_issue: null }] });
  expect((await ok("GET", `/run/QE/${run}`)).external_issue).toBeNull();
  const other = await h.api("POST", "/run/QO/external-issue", { type: "jira-cloud", links: [{ run_id: run, external_issue: "x" }] });
  expect([other.status, other.body.error.field]).toEqual([400, "links.0.run_id"]);
  expect((await h.api("POST", "/run/QE/external-issue", { type: "github", links: [{ run_id: run }] })).status).toBe(400);
});

test("system fields list the case enums with the numbers the case routes take", async () => {
  const fields = await ok("GET", "/system_field");
  const severity = fields.find((f: any) => f.slug === "severity");
  const critical = severity.options.find((o: any) => o.slug === "critical");
  expect(critical).toMatchObject({ id: 2, title: "Critical" });
  for (const slug of ["priority", "type", "behavior", "layer", "status", "automation", "is_flaky", "result_status"]) expect(fields.map((f: any) => f.slug)).toContain(slug);
  const type = fields.find((f: any) => f.slug === "type");
  expect(type.options.find((o: any) => o.slug === "functional")).toMatchObject({ id: 8, title: "Functional" });
  const results = fields.find((f: any) => f.slug === "result_status").options.map((o: any) => [o.id, o.slug]);
  expect(results).toEqual([[1, "passed"], [2, "failed"], [3, "blocked"], [4, "retest"], [5, "skipped"], [7, "in_progress"], [8, "invalid"]]);
  // A number read from here is understood by the case routes, and is what they answer.
  const api = fields.find((f: any) => f.slug === "layer").options.find((o: any) => o.slug === "api").id;
  const id = (await ok("POST", "/case/QE", { title: "by number", severity: critical.id, layer: api })).id;
  expect(await ok("GET", `/case/QE/${id}`)).toMatchObject({ severity: critical.id, layer: api });
});

test("users and authors come from the SCIM directory", async () => {
  const scim = await h.t.admin("POST", "/api/admin/scim-tokens", { name: "idp" });
  const scimToken = ((await scim.json()) as any).token;
  const made = await h.t.request("POST", "/scim/v2/Users", {
    headers: { authorization: `Bearer ${scimToken}`, "content-type": "application/scim+json" },
    rawBody: JSON.stringify({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "ada@example.com", name: { givenName: "Ada", familyName: "Lovelace" }, displayName: "Ada Lovelace", title: "Engineer", emails: [{ value: "ada@work.example", primary: true }] }),
  });
  expect(made.status).toBe(201);
  const id = Number(((await made.json()) as any).id);
  expect(await ok("GET", `/user/${id}`)).toEqual({ id, name: "Ada Lovelace", email: "ada@work.example", title: "Engineer", status: 1 });
  expect((await ok("GET", "/user?limit=100")).entities.map((u: any) => u.id)).toContain(id);
  expect(await ok("GET", `/author/${id}`)).toMatchObject({ id, author_id: id, entity_type: "user", name: "Ada Lovelace", is_active: true });
  expect((await ok("GET", "/author?search=lovelace")).entities.map((a: any) => a.id)).toEqual([id]);
  expect((await h.api("GET", "/user/999999")).status).toBe(404);
});
