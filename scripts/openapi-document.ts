/**
 * Writes the OpenAPI document the app serves at /openapi/json to a file (default
 * openapi.json), from an app over a throwaway data directory. .ci/run lints it with Redocly
 * (`npm run lint:openapi`); the generated client's types come from the same document
 * (scripts/openapi-client.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app";
import { testConfig } from "../src/config";
import { closeDatabase, openDatabase } from "../src/db/connection";
import { silentLogger } from "../src/log";
import { VERSION } from "../src/version";
import { ephemeralSecretBox } from "../src/lib/secret-box";

export async function openApiDocument(baseUrl = "http://localhost:8080"): Promise<unknown> {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-openapi-"));
  const handle = openDatabase(join(dir, "gatehouse.db"), { groupCommit: true });
  try {
    const app = createApp({ config: testConfig({ dataDir: dir, baseUrl }), db: handle.db, sqlite: handle.sqlite, groupCommit: handle.groupCommit, log: silentLogger, version: VERSION, secrets: ephemeralSecretBox() });
    return await (await app.handle(new Request("http://localhost/openapi/json"))).json();
  } finally {
    closeDatabase(handle);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const out = process.argv[2] ?? "openapi.json";
  await Bun.write(out, JSON.stringify(await openApiDocument(), null, 2) + "\n");
  console.log(`wrote ${out}`);
}
