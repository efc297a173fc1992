import * as oauth from "oauth4webapi";
import type { Config } from "../../config";
import { constantTimeEqual } from "../../lib/tokens";
import type { PendingSignIn } from "./pending-signin";

/**
 * The OpenID Connect relying party: authorization code flow with PKCE (S256), state and nonce,
 * against the issuer's discovered metadata. Every protocol check (issuer, audience, signature,
 * nonce, expiry of the ID token, the userinfo subject) is oauth4webapi's; nothing here parses a
 * JWT. It keeps no sign-in in memory: `start` hands the pending sign-in (state, verifier, nonce,
 * expiry) to the caller, which seals it into the browser's cookie, and `finish` gets it back from
 * whichever node the callback reaches.
 */

/** How long a sign-in may take at the IdP. */
export const PENDING_TTL_MS = 10 * 60_000;
const DISCOVERY_TTL_MS = 60 * 60_000;

export type SignedInClaims = { subject: string; issuer: string; name: string; groups: unknown; idToken: string };

/** Why a sign-in failed, in words for the person and the audit log (never a token). */
export class SignInError extends Error {}

const isLoopback = (host: string) => host === "localhost" || host === "[::1]" || /^127\./.test(host);

export function oidcRelyingParty(config: Config) {
  if (!config.oidcIssuer || !config.oidcClientId || !config.oidcClientSecret) return null;
  const issuer = new URL(config.oidcIssuer);
  // Plain http is allowed for an IdP on this machine only (development, tests); never across a network.
  const insecure = issuer.protocol === "http:" && isLoopback(issuer.hostname);
  const http = { [oauth.allowInsecureRequests]: insecure, signal: () => AbortSignal.timeout(10_000) } as const;
  const client: oauth.Client = { client_id: config.oidcClientId };
  const clientAuth = oauth.ClientSecretBasic(config.oidcClientSecret);
  const redirectUri = `${config.baseUrl}/auth/callback`;
  const scopes = [...new Set(["openid", ...config.oidcScopes.split(/\s+/).filter(Boolean)])].join(" ");
  let discovered: { as: oauth.AuthorizationServer; at: number } | null = null;

  async function server(): Promise<oauth.AuthorizationServer> {
    if (discovered && Date.now() - discovered.at < DISCOVERY_TTL_MS) return discovered.as;
    try {
      const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...http, signal: AbortSignal.timeout(10_000) }));
      discovered = { as, at: Date.now() };
      return as;
    } catch (e) {
      throw new SignInError(`The identity provider's discovery document could not be read (${(e as Error).message})`);
    }
  }

  return {
    redirectUri,
    /** Starts a sign-in: the IdP address to send the browser to, and the sign-in to seal into its cookie. */
    async start(now = Date.now()): Promise<{ url: string; pending: PendingSignIn }> {
      const as = await server();
      if (!as.authorization_endpoint) throw new SignInError("The identity provider has no authorization endpoint");
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const nonce = oauth.generateRandomNonce();
      const url = new URL(as.authorization_endpoint);
      url.searchParams.set("client_id", client.client_id);
      url.searchParams.set("redirect_uri", redirectUri);
      url.searchParams.set("response_type", "code");
      url.searchParams.set("scope", scopes);
      url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
      url.searchParams.set("code_challenge_method", "S256");
      url.searchParams.set("state", state);
      url.searchParams.set("nonce", nonce);
      return { url: url.href, pending: { state, verifier, nonce, expires: now + PENDING_TTL_MS } };
    },
    /**
     * Finishes a sign-in from the callback URL. `p` is the sign-in the browser's cookie carried
     * (null: none, or not one this cluster sealed): a callback whose state is not the cookie's was
     * not started by this browser (login CSRF) and is refused, as is an expired one, and one whose
     * state `take` says was used before (a replay, on any node).
     */
    async finish(callbackUrl: URL, p: PendingSignIn | null, take: (p: PendingSignIn) => Promise<boolean>, groupsClaim: string, now = Date.now()): Promise<SignedInClaims> {
      const state = callbackUrl.searchParams.get("state");
      if (!state || !p || !constantTimeEqual(p.state, state) || p.expires <= now) throw new SignInError("This sign-in link is unknown or expired, or was started in another browser; start again");
      if (!(await take(p))) throw new SignInError("This sign-in was already completed; start again");
      const as = await server();
      let params: URLSearchParams;
      try {
        params = oauth.validateAuthResponse(as, client, callbackUrl, state);
      } catch (e) {
        const err = e as { error?: string; error_description?: string; message: string };
        throw new SignInError(`The identity provider refused the sign-in: ${err.error_description ?? err.error ?? err.message}`);
      }
      try {
        const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectUri, p.verifier, http);
        const result = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: p.nonce, requireIdToken: true });
        const claims = oauth.getValidatedIdTokenClaims(result)!;
        let all: Record<string, unknown> = { ...claims };
        // Some IdPs put groups only in userinfo (oidc-provider, Keycloak without the ID-token mapper).
        if (!(groupsClaim in all) && as.userinfo_endpoint) {
          const info = await oauth.processUserInfoResponse(as, client, claims.sub, await oauth.userInfoRequest(as, client, result.access_token, http));
          all = { ...info, ...all };
        }
        const name = [all.email, all.preferred_username, all.name, claims.sub].find((v): v is string => typeof v === "string" && v.length > 0)!;
        return { subject: claims.sub, issuer: claims.iss, name, groups: all[groupsClaim], idToken: result.id_token! };
      } catch (e) {
        if (e instanceof SignInError) throw e;
        throw new SignInError(`The sign-in could not be completed with the identity provider (${(e as Error).message})`);
      }
    },
    /** RP-initiated logout: the IdP address that ends its session too, when it offers one. */
    async endSessionUrl(idToken: string | null, postLogoutRedirect: string): Promise<string | null> {
      let as: oauth.AuthorizationServer;
      try {
        as = await server();
      } catch {
        return null;
      }
      if (!as.end_session_endpoint) return null;
      const url = new URL(as.end_session_endpoint);
      if (idToken) url.searchParams.set("id_token_hint", idToken);
      url.searchParams.set("client_id", client.client_id);
      url.searchParams.set("post_logout_redirect_uri", postLogoutRedirect);
      return url.href;
    },
  };
}

export type OidcRelyingParty = NonNullable<ReturnType<typeof oidcRelyingParty>>;
