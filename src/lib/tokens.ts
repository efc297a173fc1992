import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A random bearer token: `<prefix>_` + 32 random bytes, base64url. Shown once, stored as a hash. */
export function generateToken(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString("base64url")}`;
}

/** SHA-256 hex of a token. Tokens are 256-bit random, so a fast unsalted hash is enough at rest. */
export function hashToken(token: string): string {
  // Bun's native one-shot SHA-256 (≈3× cheaper than node:crypto's createHash): this runs on
  // every SCIM and API request to find the token.
  return Bun.SHA256.hash(token, "hex") as string;
}

/** Constant-time comparison of two secrets of any length (compares their digests). */
export function constantTimeEqual(a: string, b: string): boolean {
  const da = createHash("sha256").update(a, "utf8").digest();
  const db = createHash("sha256").update(b, "utf8").digest();
  return timingSafeEqual(da, db);
}

/** Extracts the token of an `Authorization: Bearer <token>` header; null when absent/malformed. */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
  return m ? m[1]! : null;
}
