import { afterAll, expect, test } from "bun:test";
import { DefectsApi, ProjectsApi } from "qase-api-client";
import { qaseClientHarness } from "../harness";

/** Defects through the official `qase-api-client` DefectsApi over HTTP, as integrators and @qase/mcp-server call it. */
const { h, v1, close } = await qaseClientHarness();
afterAll(close);
await new ProjectsApi(v1).createProject({ title: "Defects", code: "DF" });
const defects = new DefectsApi(v1);

test("createDefect with Qase's DefectCreate (no case): stored, read back, defect.created with case_id 0", async () => {
  await h.clear();
  const created = await defects.createDefect("DF", { title: "Checkout total is wrong", actual_result: "The total ignores the coupon", severity: 3, tags: ["billing"] });
  expect(created.data).toEqual({ status: true, result: { id: 1 } });
  const got = (await defects.getDefect("DF", 1)).data.result!;
  expect(got).toMatchObject({ id: 1, title: "Checkout total is wrong", severity: "major", status: "open", case_id: null, step: 0, tags: [{ title: "billing" }] });
  expect((await h.expectEvent("defect.created")).payload).toEqual({ id: 1, title: "Checkout total is wrong", case_id: 0, step: 0, actual_result: "The total ignores the coupon", attachments: [] });
  // `step` without a case means nothing: refused, naming it.
  const stepOnly = await h.api("POST", "/defect/DF", { title: "x", actual_result: "y", step: 2 });
  expect([stepOnly.status, stepOnly.body.error.field]).toEqual([400, "step"]);
});
