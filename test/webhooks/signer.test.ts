import { expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { envelopeBody, generateSecret, sign, signatureHeader } from "../../src/webhooks/signer";

test("secrets are whsec_ + base64 of at least 24 random bytes, all different", () => {
  const a = generateSecret();
  const b = generateSecret();
  expect(a).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  expect(Buffer.from(a.slice(6), "base64").length).toBeGreaterThanOrEqual(24);
  expect(a).not.toBe(b);
});

test("a signature verifies with the standardwebhooks package, unchanged", () => {
  const secret = generateSecret();
  const ts = Math.floor(Date.now() / 1000);
  const body = envelopeBody("case.updated", ts, '{"id":7}');
  const headers = { "webhook-id": "msg_abc", "webhook-timestamp": String(ts), "webhook-signature": signatureHeader([secret], "msg_abc", ts, body) };
  expect(new Webhook(secret).verify(body, headers)).toEqual({ event: "case.updated", timestamp: ts, payload: { id: 7 } });
});

test("our signature equals the package's own", () => {
  const secret = generateSecret();
  const ts = 1795338942;
  const body = '{"event":"run.deleted","timestamp":1795338942,"payload":{"id":1}}';
  expect(sign(secret, "msg_x", ts, body)).toBe(new Webhook(secret).sign("msg_x", new Date(ts * 1000), body));
});

test("during a rotation both secrets verify the same request", () => {
  const oldSecret = generateSecret();
  const newSecret = generateSecret();
  const ts = Math.floor(Date.now() / 1000);
  const body = envelopeBody("case.deleted", ts, '{"id":9}');
  const header = signatureHeader([newSecret, oldSecret], "msg_r", ts, body);
  expect(header.split(" ").length).toBe(2);
  const headers = { "webhook-id": "msg_r", "webhook-timestamp": String(ts), "webhook-signature": header };
  expect(() => new Webhook(oldSecret).verify(body, headers)).not.toThrow();
  expect(() => new Webhook(newSecret).verify(body, headers)).not.toThrow();
  expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
});

test("a tampered body, id or timestamp fails verification", () => {
  const secret = generateSecret();
  const ts = Math.floor(Date.now() / 1000);
  const body = envelopeBody("case.deleted", ts, '{"id":9}');
  const sig = signatureHeader([secret], "msg_t", ts, body);
  const wh = new Webhook(secret);
  expect(() => wh.verify(body.replace("9", "8"), { "webhook-id": "msg_t", "webhook-timestamp": String(ts), "webhook-signature": sig })).toThrow();
  expect(() => wh.verify(body, { "webhook-id": "msg_u", "webhook-timestamp": String(ts), "webhook-signature": sig })).toThrow();
  expect(() => wh.verify(body, { "webhook-id": "msg_t", "webhook-timestamp": String(ts - 1), "webhook-signature": sig })).toThrow();
});

test("the envelope is exactly event, timestamp, payload", () => {
  const body = envelopeBody("plan.updated", 1795338942, '{"id":9,"cases":[1,2]}');
  expect(Object.keys(JSON.parse(body))).toEqual(["event", "timestamp", "payload"]);
  expect(JSON.parse(body)).toEqual({ event: "plan.updated", timestamp: 1795338942, payload: { id: 9, cases: [1, 2] } });
});
