/**
 * `npm run bench`: runs every benchmark in turn (each compares against a baseline measured in
 * the same run and prints markdown tables). Each can also run alone:
 *   bun scripts/bench-startup.ts      compiled binary start → /readyz 200
 *   bun scripts/bench-scim.ts         SCIM Users lookups/create/page at 100 000 users, growth curve
 *   bun scripts/bench-read-path.ts    SCIM reads and creates with wrk against a bare handler (ratios, CPU per request)
 *   bun scripts/bench-scim-groups.ts  10 000-member group reads and PATCH
 *   bun scripts/bench-webhooks.ts     delivery throughput, commit-to-receipt latency, RSS
 *   bun scripts/bench-tms.ts          10 000 results through the v2 bulk endpoint
 *   bun scripts/bench-writes.ts       durable creates/s (group commit) vs one fsync per insert, event latency
 *   bun scripts/bench-abuse.ts        victim latency while abusers send the largest allowed requests
 *   bun scripts/bench-postgres.ts     read path, writes and webhooks on SQLite and PostgreSQL (not in the default set: `npm run bench -- postgres`)
 * Pass names to run a subset: `npm run bench -- scim webhooks`.
 */
import { join } from "node:path";

const ALL = ["startup", "scim", "read-path", "scim-groups", "webhooks", "tms", "writes", "abuse"];
/** Runs only when named: it repeats read-path, writes and webhooks on both engines. */
const ON_REQUEST = ["postgres"];
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : ALL;
let failed = 0;
for (const name of chosen) {
  if (!ALL.includes(name) && !ON_REQUEST.includes(name)) {
    console.error(`unknown benchmark "${name}"; choose from ${[...ALL, ...ON_REQUEST].join(", ")}`);
    process.exit(2);
  }
  console.log(`\n## bench-${name}\n`);
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, `bench-${name}.ts`)], { stdout: "inherit", stderr: "inherit" });
  const code = await proc.exited;
  if (code !== 0) {
    console.error(`bench-${name} exited with ${code}`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
