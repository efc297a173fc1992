import { afterAll, beforeAll, expect, test } from "bun:test";
import FormDataStream from "form-data";
import { AttachmentsApi, Configuration } from "qase-api-client";
import { tmsHarness, type Harness } from "./harness";

let h: Harness;
let server: ReturnType<typeof Bun.serve>;
beforeAll(async () => {
  h = await tmsHarness();
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => h.t.app.handle(req) });
  await h.api("POST", "/project", { title: "Files", code: "AT" });
});
afterAll(async () => {
  server.stop(true);
  await h.close();
});

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3]);
const upload = (form: FormData, code = "AT") => h.t.app.handle(new Request(`http://localhost/api/v1/attachment/${code}`, { method: "POST", headers: { token: h.token }, body: form }));

test("upload several files; the type is sniffed from the bytes, not taken from the client", async () => {
  const form = new FormData();
  form.append("file[]", new File([PNG], "shot.png", { type: "text/html" }));
  form.append("file[]", new File(["<script>alert(1)</script>"], "page.html", { type: "text/html" }));
  form.append("file[]", new File([new Uint8Array([0, 1, 2, 255])], "dump.bin"));
  const r = await upload(form);
  expect(r.status).toBe(200);
  const body = (await r.json()) as any;
  expect(body.result.map((a: any) => [a.filename, a.mime, a.size, a.extension])).toEqual([
    ["shot.png", "image/png", PNG.length, "png"],
    ["page.html", "text/plain; charset=utf-8", 25, "html"],
    ["dump.bin", "application/octet-stream", 4, "bin"],
  ]);
  const html = body.result[1];
  expect(html.hash).toMatch(/^\d+$/);
  // Downloaded as an attachment, never rendered.
  const file = await h.t.request("GET", `/api/v1/attachment/${html.hash}/file`, { headers: { token: h.token } });
  expect(file.headers.get("content-type")).toBe("text/plain; charset=utf-8");
  expect(file.headers.get("content-disposition")).toStartWith('attachment; filename="page.html"');
  expect(file.headers.get("x-content-type-options")).toBe("nosniff");
  expect(await file.text()).toBe("<script>alert(1)</script>");
  const png = await h.t.request("GET", `/v1/attachment/${body.result[0].hash}/file`, { headers: { token: h.token } });
  expect(new Uint8Array(await png.arrayBuffer())).toEqual(PNG);
});

test("get, list and delete; unknown hashes are 404; the download needs the token", async () => {
  const form = new FormData();
  form.append("file", new File(["log line"], "run.log"));
  const hash = ((await (await upload(form)).json()) as any).result[0].hash;
  expect((await h.api("GET", `/api/v1/attachment/${hash}`)).body.result).toMatchObject({ hash, file: "run.log", mime: "text/plain; charset=utf-8", size: 8 });
  expect((await h.api("GET", "/api/v1/attachment?limit=100")).body.result.entities.map((a: any) => a.hash)).toContain(hash);
  expect((await h.t.request("GET", `/api/v1/attachment/${hash}/file`)).status).toBe(401);
  expect((await h.api("DELETE", `/api/v1/attachment/${hash}`)).body.result).toEqual({ hash });
  expect((await h.api("GET", `/api/v1/attachment/${hash}`)).status).toBe(404);
  expect((await h.api("DELETE", `/api/v1/attachment/${hash}`)).status).toBe(404);
});

test("bad uploads: no file, JSON instead of multipart, unknown project, too many files", async () => {
  const empty = new FormData();
  empty.append("note", "no file here");
  expect((await upload(empty)).status).toBe(400);
  expect((await h.api("POST", "/api/v1/attachment/AT", { file: "x" })).status).toBe(415);
  const one = new FormData();
  one.append("file[]", new File(["x"], "x.txt"));
  expect((await upload(one, "NOPE")).status).toBe(404);
  const many = new FormData();
  for (let i = 0; i < 21; i++) many.append("file[]", new File(["x"], `${i}.txt`));
  expect((await upload(many)).status).toBe(400);
});

test("the official client uploads and reads attachments; results reference them by hash", async () => {
  // As qase-javascript-commons configures it: the form-data package builds the multipart body.
  const api = new AttachmentsApi(new Configuration({ apiKey: h.token, basePath: `http://127.0.0.1:${server.port}/v1`, formDataCtor: FormDataStream }));
  const up = await api.uploadAttachment("AT", [{ name: "client.png", value: Buffer.from(PNG) } as never]);
  const hash = up.data.result![0]!.hash!;
  expect((await api.getAttachment(hash)).data.result).toMatchObject({ hash, mime: "image/png" });
  const run = (await h.api("POST", "/run/AT", { title: "r" })).body.result.id;
  const r = await h.api("POST", `/api/v2/AT/run/${run}/results`, {
    results: [{ title: "with a screenshot", attachments: [hash], execution: { status: "failed" }, steps: [{ data: { action: "look", attachments: [hash] }, execution: { status: "failed" } }] }],
  });
  const stored = (await h.api("GET", `/result/AT/${r.body.result.results[0].hash}`)).body.result;
  expect(stored.attachments).toEqual([Number(hash)]);
  expect(stored.steps[0].attachments).toEqual([Number(hash)]);
});

test("another workspace's token finds no attachment of this one", async () => {
  const ws = ((await (await h.t.admin("POST", "/api/admin/workspaces", { name: "Elsewhere" })).json()) as any).id;
  const other = ((await (await h.t.admin("POST", "/api/admin/api-tokens", { name: "other", workspaceId: ws })).json()) as any).token;
  const form = new FormData();
  form.append("file[]", new File(["private"], "secret.txt"));
  const hash = ((await (await upload(form)).json()) as any).result[0].hash;
  for (const [method, path] of [["GET", `/api/v1/attachment/${hash}`], ["GET", `/api/v1/attachment/${hash}/file`], ["DELETE", `/api/v1/attachment/${hash}`]] as const)
    expect(`${method} ${path} → ${(await h.t.request(method, path, { headers: { token: other } })).status}`).toBe(`${method} ${path} → 404`);
  const listed = (await (await h.t.request("GET", "/api/v1/attachment?limit=100", { headers: { token: other } })).json()) as any;
  expect(listed.result.total).toBe(0);
  expect((await h.api("GET", `/api/v1/attachment/${hash}`)).status).toBe(200);
});

test("a file name is kept as its base name only: a client's path never looks like one of ours", async () => {
  const form = new FormData();
  for (const name of ["../../etc/passwd", "C:\\Users\\me\\report.txt", "..", "dir/"]) form.append("file[]", new File(["x"], name));
  const r = await upload(form);
  expect(r.status).toBe(200);
  const names = ((await r.json()) as any).result.map((a: any) => a.filename);
  expect(names).toEqual(["passwd", "report.txt", "attachment", "attachment"]);
  const again = (await h.api("GET", "/attachment?limit=100")).body.result.entities.map((a: any) => a.filename);
  expect(again.some((n: string) => n.includes("/") || n.includes("\\"))).toBe(false);
});
