/**
 * A real OpenID Provider for the tests: panva's oidc-provider on 127.0.0.1, users in three admin
 * groups and one outside them, any password. Its sign-in page is our own minimal form (the
 * library's development pages load Google Fonts: a browser test must reach nothing off this
 * machine), and its logout and error pages are plain too. `signIn` drives a browser's part of the
 * authorization code flow over HTTP: Gatehouse's /auth/login, the OP's form, back to /auth/callback.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
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
/** The same groups as env keys, for the compiled binary. */
export const GROUP_ENV = { GATEHOUSE_OIDC_OWNER_GROUPS: "gatehouse-owners", GATEHOUSE_OIDC_OPERATOR_GROUPS: "gatehouse-operators", GATEHOUSE_OIDC_VIEWER_GROUPS: "gatehouse-viewers" };

const SCOPES = "openid email profile groups";
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** A whole page, with nothing loaded from anywhere. */
const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title></head><body><main><h1>${escape(title)}</h1>${body}</main></body></html>`;

function send(res: ServerResponse, status: number, html: string) {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8" });
  res.end(html);
}

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return new URLSearchParams(text);
}

/**
 * The OP's interaction pages (its `interactions.url` points here): a login form with the
 * `prompt` field the HTTP helper below reads; a login finishes the interaction. Consent is never
 * asked: loadExistingGrant grants Gatehouse, a first-party client, every scope it asks for.
 */
async function interaction(provider: Provider, req: IncomingMessage, res: ServerResponse, uid: string, action: string | undefined) {
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) return send(res, 400, page("Wrong sign-in", "<p>This sign-in is not the one in progress.</p>"));
  if (req.method === "POST" && action === "login") {
    const form = await formBody(req);
    const login = form.get("login") ?? "";
    if (!Object.hasOwn(PEOPLE, login)) return send(res, 200, loginPage(uid, `No account named “${login}”.`));
    return provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
  }
  return send(res, 200, loginPage(uid));
}

const loginPage = (uid: string, error = "") =>
  page(
    "Sign in to the test IdP",
    (error ? `<p role="alert">${escape(error)}</p>` : "") +
      `<form method="post" action="/interaction/${escape(uid)}/login">` +
      `<input type="hidden" name="prompt" value="login">` +
      `<p><label for="login">Username</label> <input id="login" name="login" autocomplete="username" required></p>` +
      `<p><label for="password">Password</label> <input id="password" name="password" type="password" autocomplete="current-password"></p>` +
      `<p><button type="submit">Sign in</button></p></form>`,
  );

/** Starts the OP; `baseUrls` are the Gatehouse origins it accepts as clients' redirect targets. */
export async function startOp(baseUrls: string | string[]): Promise<{ issuer: string; close(): Promise<void> }> {
  const bases = typeof baseUrls === "string" ? [baseUrls] : baseUrls;
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [{
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uris: bases.map((b) => `${b}/auth/callback`),
      post_logout_redirect_uris: bases.map((b) => `${b}/console`),
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    }],
    scopes: SCOPES.split(" "),
    claims: { openid: ["sub"], email: ["email"], profile: ["name", "preferred_username"], groups: ["groups"] },
    findAccount: (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: () => ({ sub: id, email: `${id}@example.com`, name: id, preferred_username: id, groups: PEOPLE[id] ?? [] }),
    }),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    loadExistingGrant: async (ctx: any) => {
      const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({ accountId: ctx.oidc.session.accountId, clientId: ctx.oidc.client.clientId });
      grant.addOIDCScope(SCOPES);
      await grant.save();
      return grant;
    },
    renderError: (ctx: any, out: Record<string, string>) => {
      ctx.type = "html";
      ctx.body = page("Sign-in error", `<p>${escape(out.error ?? "error")}: ${escape(out.error_description ?? "")}</p>`);
    },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        // The confirmation form as the library builds it (it submits itself), without its styles.
        logoutSource: (ctx: any, form: string) => {
          ctx.body = page("Sign out of the test IdP", `${form}<p><button type="submit" form="op.logoutForm" value="yes" name="logout">Sign out</button></p>`);
        },
        postLogoutSuccessSource: (ctx: any) => {
          ctx.body = page("Signed out of the test IdP", "<p>You are signed out.</p>");
        },
      },
    },
    cookies: { keys: ["op-test-cookie-key"] },
    pkce: { required: () => true },
  });
  // The provider warns about development defaults (keys) on every start: expected here.
  const callback = provider.callback();
  server.on("request", (req, res) => {
    const m = /^\/interaction\/([^/?]+)(?:\/(login))?(?:\?.*)?$/.exec(req.url ?? "");
    if (!m) return callback(req, res);
    interaction(provider, req, res, m[1]!, m[2]).catch((e: Error) => send(res, 400, page("Sign-in error", `<p>${escape(e.message)}</p>`)));
  });
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
