import { join } from "node:path";
import { tmsHarness, type Harness } from "../../tms/harness";

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
    async runNode(args: string[], cwd: string, env: Record<string, string>): Promise<string> {
      const proc = Bun.spawn(["node", ...args], { cwd, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env }, stdout: "pipe", stderr: "pipe" });
      const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
      await proc.exited;
      return `${out}\n${err}`;
    },
    async close() {
      server.stop(true);
      await h.close();
    },
  };
}
