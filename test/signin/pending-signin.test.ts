import { expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { PENDING_SIGNIN_KEY_PURPOSE, pendingSignInSealer, type PendingSignIn } from "../../src/admin/signin/pending-signin";
import { secretBox } from "../../src/lib/secret-box";

const pending: PendingSignIn = { state: "s".repeat(43), verifier: "v".repeat(43), nonce: "n".repeat(43), expires: 1_800_000_000_000 };

test("the cookie's key is derived per purpose from the shared key: never the key itself, the same on every node", () => {
  const key = randomBytes(32);
  const [derived] = secretBox(key).derivedKeys(PENDING_SIGNIN_KEY_PURPOSE);
  expect(derived!.length).toBe(32);
  expect(derived!.equals(key)).toBe(false);
  expect(secretBox(Buffer.from(key)).derivedKeys(PENDING_SIGNIN_KEY_PURPOSE)[0]!.equals(derived!)).toBe(true);
  expect(secretBox(key).derivedKeys("another use")[0]!.equals(derived!)).toBe(false);
  // A rotation: the current key's first, then the previous key's.
  const previous = randomBytes(32);
  const both = secretBox(key, [previous]).derivedKeys(PENDING_SIGNIN_KEY_PURPOSE);
  expect(both.map((k) => k.toString("hex"))).toEqual([derived!.toString("hex"), secretBox(previous).derivedKeys(PENDING_SIGNIN_KEY_PURPOSE)[0]!.toString("hex")]);
});

test("sealed sign-ins open with their key only; anything altered, truncated, foreign or oversized opens as null", () => {
  const key = randomBytes(32);
  const sealer = pendingSignInSealer([key]);
  const sealed = sealer.seal(pending);
  expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
  expect(sealed).not.toBe(sealer.seal(pending)); // a fresh IV each time
  expect(sealer.open(sealed)).toEqual(pending);
  for (let at = 3; at < sealed.length - 1; at += 7) {
    const flipped = sealed.slice(0, at) + (sealed[at] === "A" ? "B" : "A") + sealed.slice(at + 1);
    expect({ at, opened: sealer.open(flipped) }).toEqual({ at, opened: null });
  }
  expect(sealer.open(sealed.slice(0, -4))).toBeNull();
  expect(sealer.open(sealed.slice(0, 10))).toBeNull();
  expect(sealer.open("v2" + sealed.slice(2))).toBeNull();
  expect(sealer.open("")).toBeNull();
  expect(sealer.open("v1." + "A".repeat(5_000))).toBeNull();
  expect(pendingSignInSealer([randomBytes(32)]).open(sealed)).toBeNull();
  // Sealed before a key rotation: still opens with the old key listed after the new one.
  expect(pendingSignInSealer([randomBytes(32), key]).open(sealed)).toEqual(pending);
});
