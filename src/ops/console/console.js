// Gatehouse admin console: plain browser JavaScript, no dependencies, nothing loaded from
// elsewhere. Talks only to this server's admin API with the token the admin pastes.
// Every value from the API is rendered as text nodes, never parsed as HTML.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const TOKEN_KEY = "gatehouse.adminToken";
  let token = sessionStorage.getItem(TOKEN_KEY) || "";
  let selectedSubscription = null;

  class ApiFailure extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  async function api(method, path, body) {
    let res;
    try {
      res = await fetch(path, {
        method,
        cache: "no-store",
        headers: Object.assign({ authorization: "Bearer " + token }, body === undefined ? {} : { "content-type": "application/json" }),
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (e) {
      throw new ApiFailure(0, "the server did not answer (" + e.message + ")");
    }
    const text = await res.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch (_) {
      data = null;
    }
    if (!res.ok) {
      const message = (data && (data.errorMessage || (data.error && data.error.message) || data.detail)) || res.statusText || "request failed";
      if (res.status === 401) onUnauthorized();
      throw new ApiFailure(res.status, message);
    }
    return data;
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "onclick") node.addEventListener("click", v);
      else if (k === "class") node.className = v;
      else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(c === null || c === undefined ? "" : String(c)));
    return node;
  }
  const time = (iso) => (iso ? new Date(iso).toLocaleString() : "—");

  function banner(message, kind) {
    const b = $("banner");
    b.textContent = message || "";
    b.className = kind === "info" ? "info" : "";
    b.hidden = !message;
  }

  /** A human sentence for a failed call; a missing API (404) is normal on a build without that feature. */
  function explain(e, what) {
    if (!(e instanceof ApiFailure)) return what + ": " + String(e);
    if (e.status === 404) return what + " is not available on this server.";
    if (e.status === 0) return what + ": " + e.message + ".";
    return what + ": " + e.message + " (HTTP " + e.status + ").";
  }

  function emptyRow(tbody, columns, text) {
    tbody.replaceChildren(el("tr", {}, el("td", { colspan: columns, class: "empty" }, text)));
  }

  function onUnauthorized() {
    sessionStorage.removeItem(TOKEN_KEY);
    token = "";
    $("main").hidden = true;
    $("logout").hidden = true;
    banner("The admin token was rejected. Paste the value of GATEHOUSE_ADMIN_TOKEN.");
  }

  // ---- SCIM -------------------------------------------------------------------------------
  async function loadScim() {
    const box = $("scim-status");
    try {
      const s = await api("GET", "/api/admin/scim");
      const seats = s.seats || {};
      const toggle = el("button", { class: s.enabled ? "danger" : "", onclick: async (ev) => {
        ev.target.disabled = true;
        try {
          await api("PATCH", "/api/admin/scim", { enabled: !s.enabled });
        } catch (e) {
          banner(explain(e, "Changing the SCIM switch"));
        }
        loadScim();
      } }, s.enabled ? "Disable SCIM" : "Enable SCIM");
      box.replaceChildren(
        el("p", {}, "Provisioning is ", el("strong", { class: s.enabled ? "ok" : "bad" }, s.enabled ? "enabled" : "disabled"), s.enabled ? "." : " (identity providers get 403)."),
        el("p", {}, "Seats: ", el("strong", {}, seats.regular ?? "?"), " regular of ", seats.limit === null || seats.limit === undefined ? "unlimited" : String(seats.limit),
          " · read-only ", seats.readOnly ?? "?", " · billing ", seats.billing ?? "?"),
        toggle,
      );
    } catch (e) {
      box.replaceChildren(el("p", { class: "empty" }, explain(e, "SCIM status")));
    }
  }

  async function loadTokens() {
    const tbody = $("scim-tokens").tBodies[0];
    try {
      const list = await api("GET", "/api/admin/scim-tokens");
      const items = Array.isArray(list) ? list : (list && list.items) || [];
      if (items.length === 0) return emptyRow(tbody, 6, "No SCIM tokens yet. Create one for each identity provider.");
      tbody.replaceChildren(...items.map((t) => el("tr", {},
        el("td", {}, t.id), el("td", {}, t.name), el("td", {}, time(t.createdAt)), el("td", {}, time(t.lastUsedAt)),
        el("td", { class: t.revokedAt ? "bad" : "ok" }, t.revokedAt ? "revoked " + time(t.revokedAt) : "active"),
        el("td", {}, t.revokedAt ? "" : el("button", { class: "danger", onclick: async () => {
          if (!confirm("Revoke token \"" + t.name + "\"? Identity providers using it get 401 immediately.")) return;
          try {
            await api("DELETE", "/api/admin/scim-tokens/" + encodeURIComponent(t.id));
          } catch (e) {
            banner(explain(e, "Revoking the token"));
          }
          loadTokens();
        } }, "Revoke")),
      )));
    } catch (e) {
      emptyRow(tbody, 6, explain(e, "SCIM tokens"));
    }
  }

  $("token-create").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const name = $("token-name").value.trim();
    if (!name) return;
    const box = $("token-created");
    try {
      const created = await api("POST", "/api/admin/scim-tokens", { name });
      box.replaceChildren(
        el("p", {}, "Token for ", el("strong", {}, created.name), " — copy it into the identity provider now; it is not shown again:"),
        el("p", {}, el("code", {}, created.token)),
      );
      box.hidden = false;
      $("token-name").value = "";
    } catch (e) {
      banner(explain(e, "Creating a SCIM token"));
    }
    loadTokens();
  });

  // ---- Webhooks ---------------------------------------------------------------------------
  async function loadSubscriptions() {
    const tbody = $("subscriptions").tBodies[0];
    try {
      const page = await api("GET", "/api/admin/webhooks");
      const items = (page && page.items) || [];
      if (items.length === 0) return emptyRow(tbody, 7, "No webhook subscriptions.");
      tbody.replaceChildren(...items.map((s) => el("tr", { class: selectedSubscription && selectedSubscription.id === s.id ? "selected" : "" },
        el("td", {}, s.id),
        el("td", {}, s.url, s.description ? el("div", { class: "muted small" }, s.description) : ""),
        el("td", {}, (s.events || []).join(", ")),
        el("td", {}, s.project || "all"),
        el("td", { class: s.enabled ? "ok" : "bad" }, s.enabled ? "enabled" : "disabled" + (s.disabledReason ? ": " + s.disabledReason : "")),
        el("td", {}, time(s.lastSuccessAt)),
        el("td", {}, el("button", { class: "secondary", onclick: () => { selectedSubscription = s; loadSubscriptions(); loadFailed(); } }, "Failed deliveries")),
      )));
    } catch (e) {
      emptyRow(tbody, 7, explain(e, "Webhook subscriptions"));
    }
  }

  async function loadFailed() {
    const s = selectedSubscription;
    if (!s) return;
    $("deliveries").hidden = false;
    $("delivery-detail").hidden = true;
    $("deliveries-title").textContent = "Failed deliveries of subscription " + s.id + " (" + s.url + ")";
    const tbody = $("failed").tBodies[0];
    try {
      const page = await api("GET", "/api/admin/webhooks/" + encodeURIComponent(s.id) + "/deliveries?status=failed&limit=100");
      const items = (page && page.items) || [];
      if (items.length === 0) return emptyRow(tbody, 8, "No failed deliveries.");
      tbody.replaceChildren(...items.map((d) => el("tr", {},
        el("td", {}, d.id), el("td", {}, d.event), el("td", {}, el("code", {}, d.webhookId)), el("td", {}, d.attemptCount),
        el("td", {}, d.lastStatusCode ?? "—"), el("td", {}, d.lastError || "—"), el("td", {}, time(d.createdAt)),
        el("td", {},
          el("button", { onclick: async (ev) => {
            ev.target.disabled = true;
            try {
              await api("POST", "/api/admin/deliveries/" + encodeURIComponent(d.id) + "/redeliver");
              banner("Delivery " + d.id + " queued for redelivery.", "info");
            } catch (e) {
              banner(explain(e, "Redelivery"));
            }
            loadFailed();
          } }, "Redeliver"),
          " ",
          el("button", { class: "secondary", onclick: () => showDelivery(d.id) }, "Attempts"),
        ),
      )));
      if (page.total > items.length) tbody.append(el("tr", {}, el("td", { colspan: 8, class: "empty" }, "Showing the newest " + items.length + " of " + page.total + ".")));
    } catch (e) {
      emptyRow(tbody, 8, explain(e, "Failed deliveries"));
    }
  }

  async function showDelivery(id) {
    const pre = $("delivery-detail");
    try {
      const d = await api("GET", "/api/admin/deliveries/" + encodeURIComponent(id));
      pre.textContent = JSON.stringify(d, null, 2);
    } catch (e) {
      pre.textContent = explain(e, "Delivery " + id);
    }
    pre.hidden = false;
  }

  // ---- Session ----------------------------------------------------------------------------
  function refresh() {
    banner("");
    $("main").hidden = false;
    $("logout").hidden = false;
    return Promise.all([loadScim(), loadTokens(), loadSubscriptions(), loadFailed()]);
  }

  $("login").addEventListener("submit", (ev) => {
    ev.preventDefault();
    token = $("token").value.trim();
    $("token").value = "";
    if (!token) return;
    sessionStorage.setItem(TOKEN_KEY, token);
    refresh();
  });
  $("logout").addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    token = "";
    $("main").hidden = true;
    $("logout").hidden = true;
    banner("Token forgotten.", "info");
  });

  if (token) refresh();
})();
