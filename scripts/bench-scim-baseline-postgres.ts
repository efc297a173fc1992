/**
 * The bare handler of scripts/bench-read-path.ts on PostgreSQL: Bun.serve answering the same
 * requests as /scim/v2/Users with ONE prepared statement each through the same driver and pool
 * options as Gatehouse (postgres.js via `openPool`, the same pool size), no framework, no auth,
 * no SCIM rendering, `JSON.stringify` of the rows. Same database; a create is one autocommitted
 * INSERT (synchronous_commit=on: its COMMIT waits for the WAL flush). Prints its URL.
 *
 *   bun scripts/bench-scim-baseline-postgres.ts postgres://… [pool size, default 10 as Gatehouse's]
 */
import { openPool } from "../src/db/postgres/connect";

const { sql } = openPool({ url: process.argv[2]!, poolSize: Number(process.argv[3] ?? 10), caFile: null });
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
await sql`SELECT 1`;

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const url = new URL(req.url);
    if (url.pathname === "/healthz") return json({ status: "ok" });
    if (req.method === "POST") {
      const b = (await req.json()) as { userName: string; name: { givenName: string; familyName: string } };
      const now = new Date().toISOString();
      const [row] = await sql`INSERT INTO users (user_name, user_name_key, given_name, family_name, display_name, created_at, updated_at) VALUES (${b.userName}, ${b.userName.toLowerCase()}, ${b.name.givenName}, ${b.name.familyName}, ${`${b.name.givenName} ${b.name.familyName}`}, ${now}, ${now}) RETURNING id`;
      return json(row, 201);
    }
    const m = /^\/Users\/(\d+)$/.exec(url.pathname);
    if (m) return json((await sql`SELECT id, user_name, external_id, given_name, family_name, display_name, title, user_type, active, created_at, updated_at FROM users WHERE id = ${Number(m[1])}`)[0]);
    const filter = url.searchParams.get("filter");
    if (filter) {
      const v = /"([^"]*)"/.exec(filter)?.[1] ?? "";
      return json(await sql`SELECT id, user_name, external_id, given_name, family_name, display_name, title, user_type, active, created_at, updated_at FROM users WHERE user_name_key = ${v.toLowerCase()}`);
    }
    return json(await sql`SELECT id, user_name, external_id, given_name, family_name, display_name, title, user_type, active, created_at, updated_at FROM users ORDER BY id LIMIT 1000 OFFSET ${Math.max(0, Number(url.searchParams.get("startIndex") ?? "1") - 1)}`);
  },
});
console.log(server.url.href.replace(/\/$/, ""));
