import { afterAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testConfig } from "../../src/config";
import { closeDatabase, openDatabase } from "../../src/db/connection";
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
  const row = t.ctx.sqlite!.query("SELECT secret, previous_secret FROM webhook_subscriptions WHERE id = ?").get(created.id) as { secret: string; previous_secret: string };
  expect(t.ctx.secrets.open(row.secret)).toBe(rotated.secret);
  expect(t.ctx.secrets.open(row.previous_secret)).toBe(created.secret);
  t.ctx.sqlite!.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const raw = readFileSync(join(t.dir, "gatehouse.db")).toString("latin1");
  expect(raw).not.toContain("whsec_");
  expect(raw).not.toContain(created.secret.slice(6));
});

test("at start, plain secrets (from before encryption) and those of the previous key are resealed; an unknown key is refused", async () => {
  const dir = t.dir;
  const file = join(dir, "reseal.db");
  const h = openDatabase(file);
  try {
    const legacy = generateSecret();
    h.sqlite.run("INSERT INTO webhook_subscriptions (url, events, secret, created_at, updated_at) VALUES ('https://a.example', '[\"*\"]', ?, 0, 0)", [legacy]);
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    expect(await resealStoredSecrets(h.db, secretBox(oldKey))).toBe(1);
    const stored = () => (h.sqlite.query("SELECT secret FROM webhook_subscriptions").get() as { secret: string }).secret;
    expect(stored()).not.toContain("whsec_");
    expect(await resealStoredSecrets(h.db, secretBox(oldKey))).toBe(0);

    const sealedWithOld = stored();
    expect(await resealStoredSecrets(h.db, secretBox(newKey, [oldKey]))).toBe(1);
    expect(stored()).not.toBe(sealedWithOld);
    expect(secretBox(newKey).open(stored())).toBe(legacy);

    // A database restored without its key: refused before serving, nothing rewritten.
    const before = stored();
    await expect(resealStoredSecrets(h.db, secretBox(randomBytes(32)))).rejects.toThrow(SecretKeyError);
    expect(stored()).toBe(before);
  } finally {
    closeDatabase(h);
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
