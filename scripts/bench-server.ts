/** What the benchmarks that run Gatehouse in its own process share: a free port and its environment. */
import { createServer } from "node:net";

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * The environment of a benchmarked server: loopback on `port`, data in `dataDir`, request logging
 * off (warn) and the SCIM rate limit out of the way (the benchmarks measure the path, not the limit).
 */
export function benchServerEnv(port: number, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    GATEHOUSE_HOST: "127.0.0.1",
    GATEHOUSE_PORT: String(port),
    GATEHOUSE_DATA_DIR: dataDir,
    GATEHOUSE_LOG_LEVEL: "warn",
    GATEHOUSE_SCIM_RATE_LIMIT: "1000000",
    GATEHOUSE_SCIM_RATE_BURST: "1000000",
    ...extra,
  };
}
