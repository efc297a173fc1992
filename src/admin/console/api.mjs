// The admin API client. Two ways in: a person's session (an HttpOnly cookie the browser sends by
// itself, plus the CSRF token from GET /me on every change), or an admin token from this tab's
// sessionStorage as a bearer header (break-glass). Failures become ApiFailure with the server's message.

const TOKEN_KEY = "gatehouse.adminToken";
export const session = {
  get token() {
    return sessionStorage.getItem(TOKEN_KEY) || "";
  },
  signIn(token) {
    sessionStorage.setItem(TOKEN_KEY, token);
  },
  signOut() {
    sessionStorage.removeItem(TOKEN_KEY);
  },
};

/** The session's CSRF token (from GET /me); sent as x-csrf-token with every change. */
let csrfToken = "";
export const setCsrfToken = (token) => (csrfToken = token || "");

/** The credential headers of a request. */
function credentials(method) {
  if (session.token) return { authorization: "Bearer " + session.token };
  return method === "GET" || !csrfToken ? {} : { "x-csrf-token": csrfToken };
}

export class ApiFailure extends Error {
  constructor(status, message, field) {
    super(message);
    this.status = status;
    this.field = field;
  }
}

let onUnauthorized = () => {};
export const whenUnauthorized = (fn) => (onUnauthorized = fn);

/** Calls the admin API. A 401 signs out (`signingIn` leaves that to the sign-in form). */
export async function api(method, path, body, { signingIn = false } = {}) {
  let res;
  try {
    res = await fetch("/api/admin" + path, {
      method,
      cache: "no-store",
      headers: Object.assign(credentials(method), body === undefined ? {} : { "content-type": "application/json" }),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiFailure(0, "The server did not answer (" + e.message + ").");
  }
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    if (res.status === 401 && !signingIn) onUnauthorized();
    const message = (data && ((data.error && data.error.message) || data.errorMessage || data.detail)) || res.statusText || "Request failed";
    throw new ApiFailure(res.status, message + " (HTTP " + res.status + ")", data && data.error && data.error.field);
  }
  return data;
}

/** Ends a person's session here and, when the IdP supports it, there: the address to go to next. */
export async function signOutSession() {
  const res = await fetch("/auth/logout", { method: "POST", headers: { "x-csrf-token": csrfToken } });
  csrfToken = "";
  try {
    return (await res.json()).redirect || "/console";
  } catch {
    return "/console";
  }
}

/** A query string from an object, skipping empty values. */
export function qs(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? "?" + s : "";
}

/** Fetches an admin API download (it needs the credential, so a plain link cannot) and saves it. */
export async function download(path) {
  const res = await fetch("/api/admin" + path, { cache: "no-store", headers: credentials("GET") });
  if (!res.ok) {
    if (res.status === 401) onUnauthorized();
    let message = res.statusText;
    try {
      const data = await res.json();
      message = (data.error && data.error.message) || message;
    } catch {}
    throw new ApiFailure(res.status, message + " (HTTP " + res.status + ")");
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") || "");
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement("a");
  a.href = url;
  a.download = name ? name[1] : "download";
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
