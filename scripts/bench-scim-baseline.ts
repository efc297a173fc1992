/**
 * Baseline server for scripts/bench-scim.ts: a bare Bun.serve answering the same requests as
 * /scim/v2/Users with ONE prepared bun:sqlite statement each, no framework, no auth, no SCIM
 * rendering. Same database file, same pragmas (WAL, synchronous=FULL). Prints its URL.
 *
 *   bun scripts/bench-scim-baseline.ts /path/to/gatehouse.db
 */
import { Database } from "bun:sqlite";

const file = process.argv[2]!;
const db = new Database(file, { strict: true });
db.exec("PRAGMA journal_mode = WAL");
db.exec("PRAGMA synchronous = FULL");
db.exec("PRAGMA busy_timeout = 5000");
const COLS = "id, user_name, external_id, given_name, family_name, display_name, title, user_type, active, created_at, updated_at";
const byUserName = db.query(`SELECT ${COLS} FROM users WHERE user_name_key = ?`);
const byId = db.query(`SELECT ${COLS} FROM users WHERE id = ?`);
const page = db.query(`SELECT ${COLS} FROM users ORDER BY id LIMIT 1000 OFFSET ?`);
const insert = db.query(
  "INSERT INTO users (user_name, user_name_key, given_name, family_name, display_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
);
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const url = new URL(req.url);
    if (url.pathname === "/healthz") return json({ status: "ok" });
    if (req.method === "POST") {
      const b = (await req.json()) as { userName: string; name: { givenName: string; familyName: string } };
      const now = new Date().toISOString();
      return json(insert.get(b.userName, b.userName.toLowerCase(), b.name.givenName, b.name.familyName, `${b.name.givenName} ${b.name.familyName}`, now, now), 201);
    }
    const m = /^\/Users\/(\d+)$/.exec(url.pathname);
    if (m) return json(byId.get(Number(m[1])));
    const filter = url.searchParams.get("filter");
    if (filter) {
      const v = /"([^"]*)"/.exec(filter)?.[1] ?? "";
      return json(byUserName.all(v.toLowerCase()));
    }
    return json(page.all(Math.max(0, Number(url.searchParams.get("startIndex") ?? "1") - 1)));
  },
});
console.log(server.url.href.replace(/\/$/, ""));
