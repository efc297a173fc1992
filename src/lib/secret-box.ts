/**
 * Webhook signing secrets at rest. Standard Webhooks needs the secret itself to sign (a hash
 * would not do), so it is stored encrypted — AES-256-GCM under a key that is never in the
 * database: a file named by GATEHOUSE_SECRET_KEY_FILE, or `secret.key` in the data directory,
 * created on first start. A copy of the database alone (a backup, a stolen file) holds no
 * usable secret and no `whsec_` string.
 *
 * Stored form: `gh-sealed:v1:<key id>:<iv>:<ciphertext+tag>` (base64url); the key id (first
 * 8 bytes of the key's SHA-256, hex) says which key sealed it, so a rotation can tell old from new.
 * The box is the app context's (`ctx.secrets`); re-sealing the stored values at start is the
 * webhooks' (src/webhooks/secret-box.ts), and the database's record of the key's id, which refuses
 * a node with another key, is the start-up's (src/server/secret-key.ts).
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { closeSync, existsSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config";

const PREFIX = "gh-sealed:v1:";
const KEY_BYTES = 32;
/** Binds a sealed value to its use: a sealed secret cannot be passed off as something else. */
const AAD = Buffer.from("gatehouse webhook signing secret");

export type SecretBox = {
  /** Id of the key new secrets are sealed with. */
  readonly keyId: string;
  seal(plain: string): string;
  /** The plain secret; a value stored before encryption (`whsec_…`) is returned as is. */
  open(stored: string): string;
  /** Whether `stored` must be rewritten: plain, or sealed with a previous key. */
  needsReseal(stored: string): boolean;
  /** Whether `keyId` is the current key's or a previous key's (GATEHOUSE_SECRET_KEY_PREVIOUS_FILE). */
  knows(keyId: string): boolean;
  /**
   * 32-byte keys for another use of the same shared material (HKDF-SHA256, `purpose` as info):
   * the current key's first, then the previous keys'. The key itself is never used twice.
   */
  derivedKeys(purpose: string): Buffer[];
};

/** A key file or a sealed value that cannot be used: the admin must act (exit 2 at start). */
export class SecretKeyError extends Error {}

const keyIdOf = (key: Buffer) => createHash("sha256").update(key).digest("hex").slice(0, 16);

const deriveKey = (key: Buffer, purpose: string) => Buffer.from(hkdfSync("sha256", key, Buffer.alloc(0), `gatehouse ${purpose}`, KEY_BYTES));

export function secretBox(current: Buffer, previous: Buffer[] = []): SecretBox {
  const keys = new Map<string, Buffer>();
  for (const k of [current, ...previous]) keys.set(keyIdOf(k), k);
  const keyId = keyIdOf(current);
  // Opened per delivery tick for every subscription: decrypt each stored value once.
  const opened = new Map<string, string>();
  return {
    keyId,
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", current, iv).setAAD(AAD);
      const sealed = Buffer.concat([cipher.update(plain, "utf8"), cipher.final(), cipher.getAuthTag()]);
      return `${PREFIX}${keyId}:${iv.toString("base64url")}:${sealed.toString("base64url")}`;
    },
    open(stored) {
      if (!stored.startsWith(PREFIX)) return stored;
      const cached = opened.get(stored);
      if (cached !== undefined) return cached;
      const [id, iv, sealed] = stored.slice(PREFIX.length).split(":");
      const key = keys.get(id ?? "");
      if (!key || !iv || !sealed) throw new SecretKeyError(`a webhook secret is sealed with key ${id}, which this instance does not have (GATEHOUSE_SECRET_KEY_FILE / GATEHOUSE_SECRET_KEY_PREVIOUS_FILE)`);
      const bytes = Buffer.from(sealed, "base64url");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url")).setAAD(AAD);
      decipher.setAuthTag(bytes.subarray(bytes.length - 16));
      let plain: string;
      try {
        plain = Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString("utf8");
      } catch {
        throw new SecretKeyError(`a webhook secret sealed with key ${id} does not decrypt: the stored value or the key file was altered`);
      }
      if (opened.size > 10_000) opened.clear();
      opened.set(stored, plain);
      return plain;
    },
    needsReseal(stored) {
      return !stored.startsWith(`${PREFIX}${keyId}:`);
    },
    knows: (id) => keys.has(id),
    derivedKeys: (purpose) => [current, ...previous].map((k) => deriveKey(k, purpose)),
  };
}

/** Reads a key file: base64 of 32 bytes (`openssl rand -base64 32`), surrounding whitespace ignored. */
export function readKeyFile(file: string, key: string): Buffer {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new SecretKeyError(`${key}: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const bytes = Buffer.from(text.trim(), "base64");
  if (bytes.length !== KEY_BYTES || !/^[A-Za-z0-9+/=\s]+$/.test(text)) throw new SecretKeyError(`${key}: ${file} must hold base64 of ${KEY_BYTES} random bytes (openssl rand -base64 32)`);
  return bytes;
}

/** The key file used when GATEHOUSE_SECRET_KEY_FILE is not set. */
export const DEFAULT_KEY_FILE = "secret.key";

/**
 * The box `serve` uses: GATEHOUSE_SECRET_KEY_FILE, or the data directory's `secret.key`,
 * created (0600, never overwritten) when missing. Returns whether a key was created.
 */
export function loadSecretBox(config: Pick<Config, "secretKeyFile" | "secretKeyPreviousFile" | "dataDir">): { box: SecretBox; file: string; created: boolean } {
  const previous = config.secretKeyPreviousFile ? [readKeyFile(config.secretKeyPreviousFile, "GATEHOUSE_SECRET_KEY_PREVIOUS_FILE")] : [];
  if (config.secretKeyFile) return { box: secretBox(readKeyFile(config.secretKeyFile, "GATEHOUSE_SECRET_KEY_FILE"), previous), file: config.secretKeyFile, created: false };
  const file = join(config.dataDir, DEFAULT_KEY_FILE);
  let created = false;
  if (!existsSync(file)) {
    // O_EXCL: never replace a key (that would orphan every sealed secret); mode 0600 whatever the umask.
    const fd = openSync(file, "wx", 0o600);
    try {
      writeSync(fd, randomBytes(KEY_BYTES).toString("base64") + "\n");
    } finally {
      closeSync(fd);
    }
    created = true;
  }
  return { box: secretBox(readKeyFile(file, "GATEHOUSE_SECRET_KEY_FILE (default: secret.key in GATEHOUSE_DATA_DIR)"), previous), file, created };
}

/** For commands that never sign (scim-token): any use of a webhook secret is a bug. */
export const noSecretBox: SecretBox = {
  keyId: "none",
  seal() {
    throw new Error("webhook secrets are not available to this command");
  },
  open() {
    throw new Error("webhook secrets are not available to this command");
  },
  needsReseal: () => false,
  knows: () => false,
  derivedKeys() {
    throw new Error("the secret key is not available to this command");
  },
};

/** A key that lives only in this process: tests, benchmarks and document generation. */
export function ephemeralSecretBox(): SecretBox {
  return secretBox(randomBytes(KEY_BYTES));
}
