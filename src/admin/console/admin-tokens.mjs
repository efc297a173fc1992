// Admin API tokens for scripts: a name, a role and an expiry; shown once; revocable (owners only).
import { api } from "./api.mjs";
import { badge, busy, confirmDialog, el, errorSlot, field, secretBox, select, table, time } from "./dom.mjs";

export async function render(view) {
  const { page } = view;
  const tokens = await api("GET", "/admin-tokens");
  if (!view.current) return;
  const box = el("div");
  page.append(
    el("h1", { tabindex: "-1" }, "Admin tokens"),
    el("p", { class: "hint" }, "Credentials for scripts that call the admin API (Authorization: Bearer). Each has a role and an expiry, and its actions appear in the audit log under its name."),
    box,
  );
  draw(box, tokens.items);
}

function draw(box, items) {
  const name = el("input", { maxlength: "100", required: true, autocomplete: "off" });
  const role = select([["viewer", "viewer — reads only"], ["operator", "operator — webhooks and tokens"], ["owner", "owner — everything"]], "viewer");
  const days = el("input", { type: "number", min: "1", max: "366", value: "90", required: true });
  const submit = el("button", { type: "submit" }, "Create admin token");
  const error = errorSlot();
  const created = el("div", { class: "created" });
  const form = el(
    "form",
    { class: "inline-form", "aria-label": "Create an admin token" },
    field("Token name", name, "Unique; shown in the audit log, e.g. “nightly export”"),
    field("Role", role),
    field("Expires in (days)", days, "1 to 366"),
    el("div", { class: "actions" }, submit),
    error,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    await busy(submit, error, async () => {
      const t = await api("POST", "/admin-tokens", { name: name.value.trim(), role: role.value, expiresInDays: Number(days.value) });
      draw(box, (await api("GET", "/admin-tokens")).items);
      const secret = secretBox(`Admin token “${t.name}” created`, t.token, "the admin token");
      box.querySelector(".created").replaceChildren(secret);
      secret.focus();
    });
  });
  const rows = items.map((t) => {
    const revoke = el("button", { type: "button", class: "danger small", "aria-label": `Revoke admin token ${t.name}` }, "Revoke");
    const rowError = errorSlot();
    revoke.addEventListener("click", async () => {
      if (!(await confirmDialog(`Revoke “${t.name}”?`, "Scripts using this token get 401 from their next call. This cannot be undone.", "Revoke token"))) return;
      await busy(revoke, rowError, async () => {
        await api("DELETE", "/admin-tokens/" + t.id);
        draw(box, (await api("GET", "/admin-tokens")).items);
      });
    });
    return el(
      "tr",
      {},
      el("td", {}, t.name),
      el("td", {}, t.role),
      el("td", {}, t.createdBy),
      el("td", {}, time(t.expiresAt)),
      el("td", {}, time(t.lastUsedAt)),
      el("td", {}, badge(t.state, t.state === "active" ? "ok" : "bad")),
      el("td", {}, t.state === "revoked" ? "" : [revoke, rowError]),
    );
  });
  box.replaceChildren(form, created, el("h2", {}, "Tokens"), table("Admin tokens", ["Name", "Role", "Created by", "Expires", "Last used", "State", "Actions"], rows, "No admin tokens yet."));
}
