import { describe, expect, test } from "bun:test";
import { parseConfig, parseEnvFile, parseDuration } from "../src/config";

describe("parseConfig", () => {
  test("defaults are valid", () => {
    const r = parseConfig({});
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.config.port).toBe(8080);
      expect(r.config.webhookRetrySchedule).toEqual([5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000]);
      expect(r.config.scimDuplicateStatus).toBe(400);
      expect(r.config.licenseSeats).toBeNull();
    }
  });
  test("a bad value names the key and what was expected", () => {
    const r = parseConfig({ GATEHOUSE_PORT: "eighty" });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toContain("GATEHOUSE_PORT: expected an integer");
  });
  test("unknown GATEHOUSE_ keys are refused (typos must not pass silently)", () => {
    const r = parseConfig({ GATEHOUSE_PROT: "1" });
    expect(r.ok).toBe(false);
  });
  test("TLS files come in pairs", () => {
    expect(parseConfig({ GATEHOUSE_TLS_CERT_FILE: "/x.pem" }).ok).toBe(false);
  });
  test("duplicate status is 400 or 409", () => {
    expect(parseConfig({ GATEHOUSE_SCIM_DUPLICATE_STATUS: "409" }).ok).toBe(true);
    expect(parseConfig({ GATEHOUSE_SCIM_DUPLICATE_STATUS: "422" }).ok).toBe(false);
  });
});

test("parseEnvFile reads comments, quotes and export", () => {
  expect(parseEnvFile("# c\nexport A=1\nB=\"two words\"\nC=x # trailing\n")).toEqual({ A: "1", B: "two words", C: "x" });
});

test("parseDuration", () => {
  expect(parseDuration("5s")).toBe(5000);
  expect(parseDuration("2h")).toBe(7_200_000);
  expect(() => parseDuration("soon")).toThrow();
});

test("an admin token that could never authenticate, or is too short to be safe, is refused naming the key", () => {
  for (const bad of ["short-token", "has a space in it 0123456789", "tab\tinside-0123456789", "ünïcödé-0123456789"]) {
    const r = parseConfig({ GATEHOUSE_ADMIN_TOKEN: bad });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.join("\n")).toContain("GATEHOUSE_ADMIN_TOKEN");
  }
  expect(parseConfig({ GATEHOUSE_ADMIN_TOKEN: "  a-long-enough-token-0123  " }).ok).toBe(true);
  expect(parseConfig({ GATEHOUSE_ADMIN_TOKEN: "" }).ok).toBe(true);
});

test("a global webhook concurrency below 2 is refused (one subscription would hold every slot)", () => {
  expect(parseConfig({ GATEHOUSE_WEBHOOK_CONCURRENCY: "1" }).ok).toBe(false);
  expect(parseConfig({ GATEHOUSE_WEBHOOK_CONCURRENCY: "2", GATEHOUSE_WEBHOOK_PER_SUBSCRIPTION_CONCURRENCY: "2" }).ok).toBe(true);
});
