/**
 * A real OpenID Provider for the tests: panva's oidc-provider on 127.0.0.1 with its development
 * sign-in form (any password), users in three admin groups and one outside them. `signIn` drives a
 * browser's part of the authorization code flow over HTTP: Gatehouse's /auth/login, the OP's login
 * and consent forms, back to /auth/callback.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export const CLIENT_ID = "gatehouse-console";
export const CLIENT_SECRET = "op-test-client-secret-0123456789";

/** login → groups claim. */
export const PEOPLE: Record<string, string[]> = {
  "olive.owner": ["gatehouse-owners", "staff"],
  "oscar.operator": ["gatehouse-operators"],
  "vera.viewer": ["gatehouse-viewers"],
  "nina.nobody": ["staff"],
};

export const GROUP_CONFIG = { oidcOwnerGroups: ["gatehouse-owners"], oidcOperatorGroups: ["gatehouse-operators"], oidcViewerGroups: ["gatehouse-viewers"] };

export async function startOp(baseUrl: string): Promise<{ issuer: string; close(): Promise<void> }> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [{
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uris: [`${baseUrl}/auth/callback`],
      post_logout_redirect_uris: [`${baseUrl}/console`],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    }],
    scopes: ["openid", "email", "profile", "groups"],
    claims: { openid: ["sub"], email: ["email"], profile: ["name", "preferred_username"], groups: ["groups"] },
    findAccount: (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: () => ({ sub: id, email: `${id}@example.com`, name: id, preferred_username: id, groups: PEOPLE[id] ?? [] }),
    }),
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    cookies: { keys: ["op-test-cookie-key"] },
    pkce: { required: () => true },
  });
  // The provider warns about development defaults (keys, interactions) on every start: expected here.
  server.on("request", provider.callback());
  return { issuer, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Cookies of one browser for one origin. */
class Jar {
  private cookies = new Map<string, string>();
  take(r: Response) {
    for (const line of r.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === "" || /max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  get(name: string) {
    return this.cookies.get(name);
  }
}

type Handle = (request: Request) => Promise<Response>;

/**
 * Signs `login` in: returns Gatehouse's jar (holding the session cookie) and the final answer of
 * /auth/callback. `gatehouse` answers for the Gatehouse origin (app.handle or fetch to the binary).
 */
export async function signIn(gatehouse: Handle, gatehouseOrigin: string, login: string) {
  const gh = new Jar();
  const op = new Jar();
  const start = await gatehouse(new Request(`${gatehouseOrigin}/auth/login`));
  if (start.status !== 302) throw new Error(`/auth/login answered ${start.status}: ${await start.text()}`);
  gh.take(start);
  let location = start.headers.get("location")!;
  // Follow the OP's redirects, filling its login and consent forms, until it sends us back.
  for (let step = 0; step < 20; step++) {
    if (location.startsWith(gatehouseOrigin)) {
      const callback = await gatehouse(new Request(location, { headers: { cookie: gh.header() } }));
      gh.take(callback);
      return { jar: gh, callback };
    }
    let r = await fetch(location, { redirect: "manual", headers: { cookie: op.header() } });
    op.take(r);
    if (r.status === 200) {
      const html = await r.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)![1]!;
      const prompt = /name="prompt" value="([^"]+)"/.exec(html)![1];
      const form = new URLSearchParams(prompt === "login" ? { prompt, login, password: "any" } : { prompt: prompt! });
      r = await fetch(new URL(action, location), { method: "POST", redirect: "manual", body: form, headers: { cookie: op.header(), "content-type": "application/x-www-form-urlencoded" } });
      op.take(r);
    }
    if (r.status < 300 || r.status >= 400) throw new Error(`the OP answered ${r.status} at ${location}: ${(await r.text()).slice(0, 300)}`);
    location = new URL(r.headers.get("location")!, location).href;
  }
  throw new Error("too many redirects");
}
