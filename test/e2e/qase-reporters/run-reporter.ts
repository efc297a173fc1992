import { join } from "node:path";
import { tmsHarness, type Harness } from "../../tms/harness";
import { startBinary, type RunningBinary } from "../binary";

export const ROOT = join(import.meta.dir, "../../..");

/**
 * A listening Gatehouse (the tms harness behind Bun.serve on 127.0.0.1) for a reporter run by
 * node, with `ok()` to read results back and `runNode()` to run the test tool as a team would:
 * only PATH, HOME and the given variables in its environment.
 */
export async function reporterHarness() {
  const h: Harness = await tmsHarness();
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => h.t.app.handle(req) });
  return {
    h,
    base: `http://127.0.0.1:${server.port}`,
    async ok(path: string) {
      const r = await h.api("GET", path);
      if (r.status !== 200) throw new Error(`${path} → ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.result;
    },
    runNode,
    async close() {
      server.stop(true);
      await h.close();
    },
  };
}

/**
 * The same surface as `reporterHarness` (`base`, `api`, `ok`, `runNode`, `close`) over the
 * compiled binary (test/e2e/binary.ts) on 127.0.0.1, with an API token made through the admin
 * API: for reporters whose every request must meet the shipped executable.
 */
export async function binaryReporterHarness() {
  const admin = "reporter-e2e-admin-token-0123456789";
  const bin: RunningBinary = await startBinary({ env: { GATEHOUSE_ADMIN_TOKEN: admin } });
  const made = await fetch(`${bin.url}/api/admin/api-tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "reporter" }),
  });
  const { token } = (await made.json()) as { token: string };
  async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const r = await fetch(`${bin.url}/v1${path}`, { method, headers: { token, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  }
  return {
    bin,
    token,
    base: bin.url,
    api,
    async ok(path: string) {
      const r = await api("GET", path);
      if (r.status !== 200) throw new Error(`${path} → ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.result;
    },
    /** An attachment's stored bytes as text, read back through the API. */
    async download(id: number | string) {
      return (await fetch(`${bin.url}/v1/attachment/${id}/file`, { headers: { token } })).text();
    },
    runNode,
    async close() {
      if (bin.proc.exitCode === null) await bin.stop();
    },
  };
}

/** Runs a test tool by node as a team would: only PATH, HOME and the given variables in its environment. */
async function runNode(args: string[], cwd: string, env: Record<string, string>): Promise<string> {
  const proc = Bun.spawn(["node", ...args], { cwd, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  return `${out}\n${err}`;
}
