import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * A sign-in between /auth/login and /auth/callback, carried by the browser: sealed (AES-256-GCM)
 * into the login cookie, so the callback can land on any node of a cluster. The key is derived
 * from the secret key every node shares (`SecretBox.derivedKeys`); the state inside binds the
 * callback to the browser that started it (login CSRF), the verifier and nonce never leave it
 * readable, and the expiry bounds a stolen cookie's life. Single use is the database's
 * (used-states.ts): a cookie alone cannot tell a replay.
 */

export type PendingSignIn = { state: string; verifier: string; nonce: string; expires: number };

/** HKDF purpose of the cookie's key: a key of its own, never the webhook secrets' key. */
export const PENDING_SIGNIN_KEY_PURPOSE = "oidc pending sign-in cookie";

const VERSION = "v1.";
/** Binds a sealed value to this use: nothing else sealed under the same key opens as a sign-in. */
const AAD = Buffer.from("gatehouse oidc pending sign-in");
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Far above a real cookie (about 300 characters): anything longer is refused unread. */
const MAX_SEALED_CHARS = 2_048;

const isPending = (v: unknown): v is PendingSignIn => {
  const p = v as Record<string, unknown> | null;
  return typeof p === "object" && p !== null && typeof p.state === "string" && typeof p.verifier === "string" && typeof p.nonce === "string" && typeof p.expires === "number";
};

/** `keys`: the current key first (it seals), then previous ones (a sign-in started before a key rotation still opens). */
export function pendingSignInSealer(keys: readonly Buffer[]) {
  const [current] = keys;
  if (!current) throw new Error("pendingSignInSealer needs a key");
  return {
    seal(p: PendingSignIn): string {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", current, iv).setAAD(AAD);
      const body = JSON.stringify({ state: p.state, verifier: p.verifier, nonce: p.nonce, expires: p.expires });
      return VERSION + Buffer.concat([iv, cipher.update(body, "utf8"), cipher.final(), cipher.getAuthTag()]).toString("base64url");
    },
    /** The sign-in `sealed` holds, or null when it is not one this instance sealed (tampered, foreign, truncated). Expiry is the caller's. */
    open(sealed: string): PendingSignIn | null {
      if (!sealed.startsWith(VERSION) || sealed.length > MAX_SEALED_CHARS) return null;
      const bytes = Buffer.from(sealed.slice(VERSION.length), "base64url");
      if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
      const iv = bytes.subarray(0, IV_BYTES);
      const tag = bytes.subarray(bytes.length - TAG_BYTES);
      const body = bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES);
      for (const key of keys) {
        try {
          const decipher = createDecipheriv("aes-256-gcm", key, iv).setAAD(AAD);
          decipher.setAuthTag(tag);
          const parsed: unknown = JSON.parse(Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8"));
          return isPending(parsed) ? parsed : null;
        } catch {
          // not this key (or altered): try the next
        }
      }
      return null;
    },
  };
}
