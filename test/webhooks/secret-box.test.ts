import { afterAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testConfig } from "../../src/config";
import { sql } from "drizzle-orm";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { execute, rowsOf } from "../../src/db/statement";
import { writeTransaction } from "../../src/db/transaction";
import { openTestDatabase } from "../support/test-database";
import { loadSecretBox, secretBox, SecretKeyError } from "../../src/lib/secret-box";
import { resealStoredSecrets } from "../../src/webhooks/secret-box";
import { generateSecret } from "../../src/webhooks/signer";
import { createTestApp } from "../helpers";

const t = createTestApp();
afterAll(() => t.close());

test("a sealed secret opens with its key only, holds no whsec_, and detects tampering", () => {
  const key = randomBytes(32);
  const box = secretBox(key);
  const plain = generateSecret();
  const sealed = box.seal(plain);
  expect(sealed).not.toContain("whsec_");
  expect(sealed).not.toBe(box.seal(plain)); // a fresh IV each time
  expect(box.open(sealed)).toBe(plain);
  expect(box.needsReseal(sealed)).toBe(false);
  expect(box.needsReseal(plain)).toBe(true);
  expect(box.open(plain)).toBe(plain); // stored before encryption: readable until resealed

  expect(() => secretBox(randomBytes(32)).open(sealed)).toThrow(SecretKeyError);
  const at = sealed.length - 10; // inside the ciphertext, clear of base64's padding bits
  const flipped = sealed.slice(0, at) + (sealed[at] === "A" ? "B" : "A") + sealed.slice(at + 1);
  expect(() => secretBox(key).open(flipped)).toThrow(SecretKeyError);

  // Rotation: the new box opens the old key's values and says they need resealing.
  const rotated = secretBox(randomBytes(32), [key]);
  expect(rotated.open(sealed)).toBe(plain);
  expect(rotated.needsReseal(sealed)).toBe(true);
});

test("subscriptions store their secrets sealed: the raw database file holds no whsec_, and deliveries still verify", async () => {
  const created = (await (await t.admin("POST", "/api/admin/webhooks", { url: "https://hooks.example.com/x", events: ["*"] })).json()) as { id: number; secret: string };
  expect(created.secret).toStartWith("whsec_");
  const rotated = (await (await t.admin("POST", `/api/admin/webhooks/${created.id}/rotate-secret`)).json()) as { secret: string };
  const [row] = await rowsOf<{ secret: string; previous_secret: string }>(t.ctx.db, sql`SELECT secret, previous_secret FROM webhook_subscriptions WHERE id = ${created.id}`);
  expect(t.ctx.secrets.open(row!.secret)).toBe(rotated.secret);
  expect(t.ctx.secrets.open(row!.previous_secret)).toBe(created.secret);
  // What is stored: SQLite's file itself; on PostgreSQL every column of the table as text.
  let raw: string;
  if (t.ctx.sqlite) {
    t.ctx.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    raw = readFileSync(join(t.dir, "gatehouse.db")).toString("latin1");
  } else raw = (await rowsOf<{ all: string }>(t.ctx.db, sql`SELECT string_agg(s::text, '|') AS "all" FROM webhook_subscriptions s`))[0]!.all;
  expect(raw).toContain(String(row!.secret).slice(0, 20)); // the check reads what holds the secrets
  expect(raw).not.toContain("whsec_");
  expect(raw).not.toContain(created.secret.slice(6));
});

test("at start, plain secrets (from before encryption) and those of the previous key are resealed; an unknown key is refused", async () => {
  const h = openTestDatabase(mkdtempSync(join(tmpdir(), "gatehouse-reseal-")));
  try {
    const legacy = generateSecret();
    await writeTransaction(h.db, (tx) => execute(tx, sql`INSERT INTO webhook_subscriptions (url, events, secret, created_at, updated_at) VALUES ('https://a.example', '["*"]', ${legacy}, 0, 0)`));
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    expect(await resealStoredSecrets(h.db, secretBox(oldKey))).toBe(1);
    const stored = async () => (await rowsOf<{ secret: string }>(h.db, sql`SELECT secret FROM webhook_subscriptions`))[0]!.secret;
    expect(await stored()).not.toContain("whsec_");
    expect(await resealStoredSecrets(h.db, secretBox(oldKey))).toBe(0);

    const sealedWithOld = await stored();
    expect(await resealStoredSecrets(h.db, secretBox(newKey, [oldKey]))).toBe(1);
    expect(await stored()).not.toBe(sealedWithOld);
    expect(secretBox(newKey).open(await stored())).toBe(legacy);

    // A database restored without its key: refused before serving, nothing rewritten.
    const before = await stored();
    await expect(resealStoredSecrets(h.db, secretBox(randomBytes(32)))).rejects.toThrow(SecretKeyError);
    expect(await stored()).toBe(before);
  } finally {
    h.close();
  }
});

test("the default key file is created once in the data directory, 0600, and never replaced", () => {
  const config = testConfig({ dataDir: t.dir });
  const first = loadSecretBox(config);
  expect(first.created).toBe(true);
  expect(statSync(first.file).mode & 0o777).toBe(0o600);
  const again = loadSecretBox(config);
  expect(again.created).toBe(false);
  expect(again.box.keyId).toBe(first.box.keyId);

  const bad = join(t.dir, "bad.key");
  writeFileSync(bad, "not a key");
  expect(() => loadSecretBox(testConfig({ dataDir: t.dir, secretKeyFile: bad }))).toThrow("must hold base64 of 32 random bytes");
  expect(() => loadSecretBox(testConfig({ dataDir: t.dir, secretKeyFile: join(t.dir, "missing.key") }))).toThrow("GATEHOUSE_SECRET_KEY_FILE: cannot read");
});
