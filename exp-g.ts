import { Database } from "bun:sqlite";
const db = new Database("/tmp/exp18/full.db", { create: true });
db.exec("PRAGMA journal_mode=WAL"); db.exec("CREATE TABLE IF NOT EXISTS t(x)"); db.exec("PRAGMA max_page_count = 10");
try { for (let i = 0; i < 100; i++) db.query("INSERT INTO t VALUES (randomblob(4000))").run(); } catch (e) { console.log((e as any).code, (e as any).errno, (e as Error).message, (e as any).name); }
