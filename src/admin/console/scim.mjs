// SCIM: the on/off switch, seats, the URL to paste into the IdP, and the IdPs' bearer tokens.
import { api } from "./api.mjs";
import { ago, badge, busy, confirmDialog, copyButton, el, errorSlot, facts, field, secretBox, select, table, time } from "./dom.mjs";

export async function render(view) {
  const { page } = view;
  const [settings, tokens, instance, { items: workspaces }] = await Promise.all([api("GET", "/scim"), api("GET", "/scim-tokens"), api("GET", "/instance"), api("GET", "/workspaces")]);
  if (!view.current) return;
  const switchBox = el("section", { "aria-labelledby": "scim-state" });
  const tokensBox = el("section", { "aria-labelledby": "scim-tokens" });
  page.append(el("h1", { tabindex: "-1" }, "SCIM provisioning"), switchBox, tokensBox);
  renderSwitch(switchBox, settings, instance.baseUrl);
  renderTokens(tokensBox, tokens, workspaces);
}

function renderSwitch(box, s, baseUrl) {
  const url = baseUrl.replace(/\/$/, "") + "/scim/v2";
  const urlCode = el("code", {}, url);
  const error = errorSlot();
  const toggle = el("button", { type: "button", class: s.enabled ? "danger" : "" }, s.enabled ? "Disable SCIM" : "Enable SCIM");
  toggle.addEventListener("click", async () => {
    if (s.enabled) {
      const ok = await confirmDialog("Disable SCIM provisioning?", "Every call from your identity providers (Entra ID, Okta, …) will get 403 Forbidden until you enable it again. Users and groups stay as they are.", "Disable SCIM");
      if (!ok) return;
    }
    await busy(toggle, error, async () => {
      const next = await api("PATCH", "/scim", { enabled: !s.enabled });
      renderSwitch(box, next, baseUrl);
      box.querySelector("button")?.focus();
    });
  });
  const seats = s.seats;
  box.replaceChildren(
    el("h2", { id: "scim-state" }, "State"),
    el(
      "div",
      { class: "card" },
      facts([
        ["Provisioning", [badge(s.enabled ? "enabled" : "disabled", s.enabled ? "ok" : "bad"), s.enabled ? "" : " — identity providers get 403"]],
        ["Seats (regular)", seats.regular + " of " + (seats.limit === null ? "unlimited" : seats.limit)],
        ["Read-only users", String(seats.readOnly)],
        ["Billing users", String(seats.billing)],
        ["SCIM base URL", el("span", { class: "copy-line" }, urlCode, " ", copyButton(url, "Copy the SCIM base URL", urlCode))],
      ]),
      el("p", { class: "hint" }, "Paste the base URL into Entra ID (Tenant URL) or Okta (SCIM connector base URL) with a token from below."),
      el("div", { class: "actions" }, toggle),
      error,
    ),
  );
}

function renderTokens(box, tokens, workspaces) {
  const name = el("input", { maxlength: "200", required: true, autocomplete: "off" });
  const scope = select([["", "Organization (every workspace)"], ...workspaces.filter((w) => !w.archived).map((w) => [String(w.id), "Workspace " + w.name])], "");
  const scopeName = (id) => (id === null ? "organization" : "workspace " + (workspaces.find((w) => w.id === id)?.name ?? id));
  const submit = el("button", { type: "submit" }, "Create token");
  const error = errorSlot();
  const form = el("form", { class: "inline-form", "aria-label": "Create a SCIM token" }, field("Token name", name, "What it is for, e.g. “Entra ID production”"), field("Scope", scope, "A workspace token provisions into that workspace only"), el("div", { class: "actions" }, submit), error);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    // The button stays disabled while the request is in flight: a double click cannot mint two live tokens.
    await busy(submit, error, async () => {
      const t = await api("POST", "/scim-tokens", { name: name.value.trim(), workspaceId: scope.value ? Number(scope.value) : null });
      name.value = "";
      const list = await api("GET", "/scim-tokens");
      renderTokens(box, list, workspaces);
      const secret = secretBox(`SCIM token “${t.name}” created`, t.token, "the SCIM token");
      box.querySelector(".created").replaceChildren(secret);
      secret.focus();
    });
  });
  const rows = tokens.map((t) => {
    const revoke = el("button", { type: "button", class: "danger small", "aria-label": `Revoke SCIM token ${t.name}` }, "Revoke");
    const rowError = errorSlot();
    revoke.addEventListener("click", async () => {
      const ok = await confirmDialog(`Revoke “${t.name}”?`, "Identity providers using this token get 401 from their next call. This cannot be undone; create a new token to reconnect.", "Revoke token");
      if (!ok) return;
      await busy(revoke, rowError, async () => {
        await api("DELETE", "/scim-tokens/" + t.id);
        renderTokens(box, await api("GET", "/scim-tokens"), workspaces);
      });
    });
    return el(
      "tr",
      {},
      el("td", {}, t.name),
      el("td", {}, scopeName(t.workspaceId)),
      el("td", {}, time(t.createdAt)),
      el("td", {}, t.lastUsedAt ? [time(t.lastUsedAt), el("span", { class: "muted" }, " (" + ago(t.lastUsedAt) + ")")] : el("span", { class: "muted" }, "never")),
      el("td", {}, t.revokedAt ? [badge("revoked", "bad"), " ", time(t.revokedAt)] : badge("active", "ok")),
      el("td", {}, t.revokedAt ? "" : [revoke, rowError]),
    );
  });
  box.replaceChildren(
    el("h2", { id: "scim-tokens" }, "Tokens"),
    el("p", { class: "hint" }, "One token per identity provider connection. The token is shown once when created; only its hash is stored."),
    form,
    el("div", { class: "created" }),
    table("SCIM tokens", ["Name", "Scope", "Created", "Last used", "State", "Actions"], rows, "No SCIM tokens yet. Create one for each identity provider."),
  );
}
