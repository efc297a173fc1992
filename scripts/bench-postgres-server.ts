/**
 * The PostgreSQL server the benchmarks measure against, durable like production: fsync, full-page
 * writes and synchronous_commit on (a 2xx only after the WAL is flushed). The test server
 * (test/support/postgres.ts) runs with fsync off, which would flatter every write figure; here
 * `startPostgres` is given the production settings back. `BENCH_POSTGRES_URL` names a running
 * server instead (bench-postgres.ts starts one and hands it to every benchmark it runs).
 * Each benchmark scenario gets a database of its own on it (`benchDatabase`).
 */
import postgres from "postgres";
import { startPostgres } from "../test/support/postgres";

/** What differs from the test server: production's durability, and room for the benchmarks' pools. */
export const DURABLE_SETTINGS = ["fsync=on", "full_page_writes=on", "synchronous_commit=on", "max_connections=300"];

/** The settings that decide a durable write's cost, for the report. */
const REPORTED = ["server_version", "fsync", "synchronous_commit", "full_page_writes", "wal_sync_method", "commit_delay", "shared_buffers", "max_wal_size", "checkpoint_timeout", "max_connections"];

export type BenchPostgres = { url: string; stop(): void };

/** `BENCH_POSTGRES_URL`, or a durable server of this process's own (stopped by `stop` or at exit). */
export async function benchPostgres(extra: string[] = []): Promise<BenchPostgres> {
  const given = process.env.BENCH_POSTGRES_URL;
  if (given) return { url: given, stop() {} };
  const server = startPostgres([...DURABLE_SETTINGS, ...extra]);
  const s = await postgresSettings(server.url);
  if (s.fsync !== "on" || s.synchronous_commit !== "on") {
    server.stop();
    throw new Error(`the benchmark's PostgreSQL is not durable: fsync=${s.fsync}, synchronous_commit=${s.synchronous_commit}`);
  }
  return { url: server.url, stop: () => server.stop() };
}

/** The server's settings that matter for the figures. */
export async function postgresSettings(url: string): Promise<Record<string, string>> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ name: string; setting: string; unit: string | null }[]>`SELECT name, setting, unit FROM pg_settings WHERE name IN ${sql(REPORTED)}`;
    const out: Record<string, string> = Object.create(null);
    for (const r of rows) out[r.name] = r.name === "shared_buffers" ? `${(Number(r.setting) * 8) / 1024} MB` : r.unit && r.unit !== "8kB" ? `${r.setting} ${r.unit}` : r.setting;
    return out;
  } finally {
    await sql.end();
  }
}

/** One line for a report: `fsync=on, synchronous_commit=on, …`. */
export function settingsLine(s: Record<string, string>): string {
  return REPORTED.filter((k) => k in s).map((k) => `${k}=${s[k]}`).join(", ");
}

let counter = 0;

/** A new, empty database on `serverUrl`; its URL, and `drop()`. */
export async function benchDatabase(serverUrl: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${process.pid}_${counter++}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const a = postgres(serverUrl, { max: 1, onnotice: () => {} });
      try {
        await a.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await a.end();
      }
    },
  };
}

/** WAL flushes so far on the server (pg_stat_wal.wal_sync): the PostgreSQL counterpart of Gatehouse's WAL-sync counter. */
export async function walSyncsOf(sql: postgres.Sql): Promise<number> {
  const [row] = await sql<{ n: string }[]>`SELECT wal_sync::text AS n FROM pg_stat_wal`;
  return Number(row?.n ?? NaN);
}
