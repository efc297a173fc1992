import { expect, test } from "bun:test";
import { parseConfig } from "../../src/config";

const oidc = { GATEHOUSE_OIDC_ISSUER: "https://login.example.com/tenant/v2.0", GATEHOUSE_OIDC_CLIENT_ID: "gatehouse", GATEHOUSE_OIDC_CLIENT_SECRET: "s3cret" };

test("OIDC keys: issuer, client id and secret together, with at least one admin group", () => {
  const ok = parseConfig({ ...oidc, GATEHOUSE_OIDC_OWNER_GROUPS: "gh-owners, gh-admins", GATEHOUSE_SESSION_IDLE_TIMEOUT: "15m" });
  expect(ok.ok).toBe(true);
  if (ok.ok) {
    expect(ok.config.oidcOwnerGroups).toEqual(["gh-owners", "gh-admins"]);
    expect(ok.config.oidcGroupsClaim).toBe("groups");
    expect(ok.config.sessionIdleTimeoutMs).toBe(15 * 60_000);
    expect(ok.config.sessionAbsoluteTimeoutMs).toBe(12 * 3_600_000);
    expect(ok.config.adminTokenWithOidc).toBe(false);
  }
  const partial = parseConfig({ GATEHOUSE_OIDC_ISSUER: oidc.GATEHOUSE_OIDC_ISSUER, GATEHOUSE_OIDC_OWNER_GROUPS: "x" });
  expect(partial.ok).toBe(false);
  if (!partial.ok) expect(partial.errors.join()).toContain("GATEHOUSE_OIDC_CLIENT_ID");
  const nobody = parseConfig(oidc);
  expect(nobody.ok).toBe(false);
  if (!nobody.ok) expect(nobody.errors.join()).toContain("GATEHOUSE_OIDC_OWNER_GROUPS");
  const badTimeout = parseConfig({ GATEHOUSE_SESSION_ABSOLUTE_TIMEOUT: "forever" });
  expect(badTimeout.ok).toBe(false);
  expect(parseConfig({}).ok).toBe(true);
});
