/**
 * `gatehouse copy-to-postgres [url]`: the command around the copy (src/db/postgres/copy-from-sqlite.ts):
 * which target, connecting to it with the configuration's TLS settings, the table of counts on
 * stdout, and exit 2 for every refusal. The URL appears only as `redactDatabaseUrl` writes it.
 */
import type { Config } from "../config";
import type { Logger } from "../log";
import { connectPostgres, redactDatabaseUrl } from "../db/postgres/connect";
import { copyDataDirToPostgres, CopyRefusedError } from "../db/postgres/copy-from-sqlite";
import { parseDatabaseUrl } from "../db/postgres/url";
import { databaseFile } from "../server";
import { EXIT_ADMIN_MUST_ACT, EXIT_OK } from "./exit-codes";

/** The copy holds one connection for its transaction; the emptiness check and the migrations one more. */
const POOL_SIZE = 2;

export async function copyToPostgresCommand(config: Config, url: string | null, io: { out(text: string): void }, log: Logger): Promise<number> {
  const target = url ?? config.databaseUrl;
  if (target === null) {
    log.error("copy-to-postgres needs the target database: gatehouse copy-to-postgres postgres://USER@HOST:5432/DATABASE, or GATEHOUSE_DATABASE_URL in the configuration");
    return EXIT_ADMIN_MUST_ACT;
  }
  if (url !== null) {
    try {
      parseDatabaseUrl(url);
    } catch (e) {
      // The parser's messages quote no part of the URL.
      log.error(`copy-to-postgres: the target URL: expected ${(e as Error).message}`);
      return EXIT_ADMIN_MUST_ACT;
    }
  }
  const from = databaseFile(config);
  const to = redactDatabaseUrl(target);
  log.info("copying the SQLite database to PostgreSQL", { from, to });
  const started = performance.now();
  const { sql } = await connectPostgres({ url: target, poolSize: POOL_SIZE, caFile: config.databaseCaFile });
  try {
    const report = await copyDataDirToPostgres(config.dataDir, sql, {
      onMigrated: (tags) => tags.forEach((migration) => log.info("migration applied to the target", { migration })),
      onTable: ({ table, rows }) => log.info("table copied (not yet committed)", { table, rows }),
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const tables = [...report.tables].sort((a, b) => (a.table < b.table ? -1 : 1));
    const width = Math.max("total".length, ...tables.map((t) => t.table.length));
    const digits = String(report.rows).length;
    io.out(`copied ${from}\n    to ${to}\n\n`);
    for (const { table, rows } of tables) io.out(`${table.padEnd(width)}  ${String(rows).padStart(digits)}\n`);
    io.out(`${"total".padEnd(width)}  ${String(report.rows).padStart(digits)} rows in ${tables.length} tables, ${seconds} s; every count checked equal on both sides\n`);
    io.out(
      url === null
        ? `\nThe configuration names this database (GATEHOUSE_DATABASE_URL): start the server.\n`
        : `\nNext: set GATEHOUSE_DATABASE_URL to this database in the configuration and start the server (keep the secret key file).\n`,
    );
    log.info("copy committed", { tables: tables.length, rows: report.rows, seconds: Number(seconds) });
    return EXIT_OK;
  } catch (e) {
    if (!(e instanceof CopyRefusedError)) throw e;
    log.error(e.message);
    return EXIT_ADMIN_MUST_ACT;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
