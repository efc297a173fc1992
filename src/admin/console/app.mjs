// Gatehouse admin console: the shell (sign-in, navigation, hash routes). Each page is a module
// with `render(view)`; everything goes through the documented admin API (api.mjs).
import { api, session, setCsrfToken, signOutSession, whenUnauthorized } from "./api.mjs";
import { $, el, errorSlot, field } from "./dom.mjs";
import * as scim from "./scim.mjs";
import * as provisioning from "./provisioning.mjs";
import * as directory from "./directory.mjs";
import * as apiTokens from "./api-tokens.mjs";
import * as webhooks from "./webhooks.mjs";
import * as deliveries from "./deliveries.mjs";
import * as instance from "./instance.mjs";
import * as workspaces from "./workspaces.mjs";
import * as audit from "./audit.mjs";
import * as adminTokens from "./admin-tokens.mjs";

const ROUTES = [
  [/^\/scim$/, scim.render],
  [/^\/provisioning$/, provisioning.render],
  [/^\/users$/, directory.renderUsers],
  [/^\/users\/(\d+)$/, directory.renderUser],
  [/^\/groups$/, directory.renderGroups],
  [/^\/groups\/([^/]+)$/, directory.renderGroup],
  [/^\/api-tokens$/, apiTokens.render],
  [/^\/webhooks$/, webhooks.renderList],
  [/^\/webhooks\/new$/, webhooks.renderNew],
  [/^\/webhooks\/(\d+)$/, webhooks.renderSubscription],
  [/^\/webhooks\/(\d+)\/deliveries\/(\d+)$/, deliveries.renderDelivery],
  [/^\/workspaces$/, workspaces.render],
  [/^\/instance$/, instance.render],
  [/^\/audit$/, audit.render],
  [/^\/admin-tokens$/, adminTokens.render],
];

const ROLE_ORDER = ["viewer", "operator", "owner"];
const allows = (have, need) => ROLE_ORDER.indexOf(have) >= ROLE_ORDER.indexOf(need);
/** Who is signed in ({kind, name, role} of GET /me), asked once per sign-in. */
let me = null;

/** Shows who is signed in, and only the sections their role may open. */
function applyRole(who) {
  for (const li of document.querySelectorAll("#nav li[data-role]")) li.hidden = !allows(who.role, li.dataset.role);
  const label = $("whoami");
  label.textContent = who.name + " · " + who.role;
  label.hidden = false;
}

let signInMessage = "";
/** Shown on the sign-in page after signing out (until the next sign-in). */
let signedOutNote = false;
whenUnauthorized(() => {
  const wasPerson = me && me.kind === "person";
  session.signOut();
  me = null;
  setCsrfToken("");
  signInMessage = wasPerson ? "Your session has ended (signed out elsewhere, idle too long or past its time limit). Sign in again." : "The admin token was rejected. Sign in again.";
  route();
});

/** The current hash as a path and query: "#/users?q=ada" → ["/users", URLSearchParams]. */
function current() {
  const hash = location.hash.startsWith("#/") ? location.hash.slice(1) : "/scim";
  const [path, query = ""] = hash.split("?");
  return [path, new URLSearchParams(query)];
}

let renderSeq = 0;
/** Set when a page changes only its query (filters, paging): focus stays on the control used. */
let keepFocus = false;
async function route() {
  const main = $("main");
  // A person's session is a cookie this page cannot see: ask who we are.
  if (!session.token && !me) {
    try {
      me = await api("GET", "/me", undefined, { signingIn: true });
      setCsrfToken(me.csrfToken);
    } catch {
      me = null;
    }
  }
  const signedIn = Boolean(session.token) || Boolean(me);
  $("nav").hidden = !signedIn;
  $("sign-out").hidden = !signedIn;
  if (!signedIn) {
    $("whoami").hidden = true;
    return renderSignIn(main);
  }
  if (!me) {
    try {
      me = await api("GET", "/me");
    } catch (e) {
      main.replaceChildren(el("div", { class: "page" }, el("h1", { tabindex: "-1" }, "Something went wrong"), el("p", { class: "error", role: "alert" }, e.message || String(e))));
      return;
    }
  }
  applyRole(me);
  const [path, query] = current();
  for (const a of document.querySelectorAll("#nav a")) {
    const here = path === a.getAttribute("href").slice(1) || path.startsWith(a.getAttribute("href").slice(1) + "/");
    if (here) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  const match = ROUTES.map(([re, render]) => [re.exec(path), render]).find(([m]) => m);
  const seq = ++renderSeq;
  const page = el("div", { class: "page" });
  const view = {
    params: match ? match[0].slice(1).map(decodeURIComponent) : [],
    query,
    page,
    /** Changes the query of this page (filters, paging) without leaving it; focus stays where it is. */
    setQuery(params) {
      keepFocus = true;
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
      const s = q.toString();
      location.hash = "#" + path + (s ? "?" + s : "");
    },
    /** True while this render is still the current one (a slow answer must not overwrite a newer page). */
    get current() {
      return seq === renderSeq;
    },
  };
  // Filters and paging re-render the page: focus returns to the control that was used.
  const focused = keepFocus && document.activeElement && document.activeElement !== document.body ? document.activeElement : null;
  const focusKey = focused && (focused.id ? "#" + CSS.escape(focused.id) : focused.getAttribute("aria-label") ? `[aria-label="${CSS.escape(focused.getAttribute("aria-label"))}"]` : null);
  main.replaceChildren(page);
  if (!match) {
    page.append(el("h1", { tabindex: "-1" }, "Not found"), el("p", {}, "No page at this address. ", el("a", { href: "#/scim" }, "Go to SCIM")));
  } else {
    try {
      await match[1](view);
    } catch (e) {
      if (!view.current) return;
      if (!page.querySelector("h1")) page.prepend(el("h1", { tabindex: "-1" }, "Something went wrong"));
      page.append(el("p", { class: "error", role: "alert" }, e.message || String(e)));
    }
  }
  if (!view.current) return;
  const again = focusKey && page.querySelector(focusKey);
  if (again && !again.disabled) again.focus();
  else page.querySelector("h1")?.focus();
  keepFocus = false;
}


async function renderSignIn(main) {
  let ways = { oidc: false, adminToken: true };
  try {
    ways = await (await fetch("/auth/status", { cache: "no-store" })).json();
  } catch {
    // the form below still works
  }
  const input = el("input", { type: "password", autocomplete: "current-password", spellcheck: "false", required: true });
  const error = errorSlot();
  const submit = el("button", { type: "submit" }, "Sign in");
  const form = el(
    "form",
    { class: "stack", "aria-labelledby": "signin-title" },
    field("Admin token", input, "The value of GATEHOUSE_ADMIN_TOKEN. It stays in this browser tab (sessionStorage) until you sign out or close the tab, and is sent only to this server."),
    el("div", { class: "actions" }, submit),
    error,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const token = input.value.trim();
    if (!token) return error.show("Paste the admin token.");
    submit.disabled = true;
    session.signIn(token);
    try {
      await api("GET", "/instance", undefined, { signingIn: true });
      signInMessage = "";
      signedOutNote = false;
      input.value = "";
      route();
    } catch (e) {
      session.signOut();
      error.show(e.status === 401 ? "This is not the admin token (HTTP 401)." : e.message);
      input.focus();
    } finally {
      submit.disabled = false;
    }
  });
  if (signInMessage && !ways.oidc) error.show(signInMessage);
  const note = signedOutNote ? el("p", { class: "note", role: "status" }, "Signed out.") : null;
  const sso = ways.oidc ? el("p", {}, el("a", { href: "/auth/login", class: "button", id: "sso" }, "Sign in with your organization")) : null;
  const tokenPart = !ways.adminToken ? null : ways.oidc ? el("details", { class: "card" }, el("summary", {}, "Break-glass: sign in with the admin token"), form) : form;
  main.replaceChildren(
    el(
      "div",
      { class: "page narrow" },
      el("h1", { id: "signin-title", tabindex: "-1" }, "Sign in to the Gatehouse console"),
      note,
      sso,
      tokenPart,
      !sso && !tokenPart ? el("p", { class: "error", role: "alert" }, "No sign-in is configured: set GATEHOUSE_OIDC_ISSUER (with its client id, secret and admin groups) or GATEHOUSE_ADMIN_TOKEN.") : null,
      signInMessage && ways.oidc ? el("p", { class: "error", role: "alert" }, signInMessage) : null,
      el("p", { class: "muted" }, "API reference: ", el("a", { href: "/openapi" }, "/openapi"), "."),
    ),
  );
  if (sso) sso.querySelector("a").focus();
  else if (tokenPart) input.focus();
}

$("sign-out").addEventListener("click", async () => {
  if (me && me.kind === "person" && !session.token) {
    me = null;
    location.assign(await signOutSession()); // the IdP's end-session page, or back here
    return;
  }
  session.signOut();
  me = null;
  signInMessage = "";
  signedOutNote = true;
  route();
});

// The skip link moves focus past the header and navigation to the page's heading (its href would
// change the hash, which is the router's).
$("skip").addEventListener("click", (ev) => {
  ev.preventDefault();
  const heading = $("main").querySelector("h1");
  (heading || $("main")).focus();
});

window.addEventListener("hashchange", route);
route();
