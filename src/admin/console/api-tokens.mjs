// API tokens: the `Token` credentials of reporters and Qase clients, optionally attributed to a user.
import { api, qs } from "./api.mjs";
import { badge, busy, confirmDialog, el, errorSlot, field, secretBox, select, table, time } from "./dom.mjs";

export async function render(view) {
  const { page } = view;
  const [tokens, { items: workspaces }] = await Promise.all([api("GET", "/api-tokens"), api("GET", "/workspaces")]);
  if (!view.current) return;
  const box = el("div");
  page.append(
    el("h1", { tabindex: "-1" }, "API tokens"),
    el("p", { class: "hint" }, "For test reporters and Qase clients (the Token header of /api/v1 and /api/v2). A token reaches the projects of its workspace only. A token attributed to a user stops working when that user is deactivated."),
    box,
  );
  draw(box, tokens, workspaces, view.query.get("user") || "");
}

/**
 * The user picker: a search field and the list of the active members of the chosen workspace it
 * matches (by userName, name or e-mail), refreshed as the admin types or changes the workspace.
 */
function userPicker(workspace, preset) {
  const search = el("input", { type: "search", maxlength: "200", autocomplete: "off", value: preset });
  const choice = select([["", "Nobody (the token is not attributed)"]], "");
  const status = el("p", { class: "hint", role: "status" });
  let seq = 0;
  /** What the list shows matches for (the workspace and the search text). */
  let listed = "";
  const refresh = async () => {
    const mine = ++seq;
    const text = search.value.trim();
    listed = workspace.value + "|" + text;
    if (!text) {
      choice.replaceChildren(el("option", { value: "" }, "Nobody (the token is not attributed)"));
      status.textContent = "";
      return;
    }
    let found;
    try {
      found = await api("GET", "/directory/users" + qs({ q: text, active: "true", workspaceId: workspace.value, limit: 20 }));
    } catch (e) {
      if (mine === seq) status.textContent = e.message;
      return;
    }
    if (mine !== seq) return; // a newer search answered first
    const lower = text.toLowerCase();
    const exact = found.items.find((u) => u.userName.toLowerCase() === lower || u.emails.some((m) => m.toLowerCase() === lower));
    const keep = found.items.some((u) => String(u.id) === choice.value) ? choice.value : exact ? String(exact.id) : found.items.length === 1 ? String(found.items[0].id) : "";
    choice.replaceChildren(
      el("option", { value: "" }, found.items.length ? "Choose a user…" : "Nobody (the token is not attributed)"),
      ...found.items.map((u) => el("option", { value: String(u.id) }, u.userName + (u.displayName && u.displayName !== u.userName ? " — " + u.displayName : ""))),
    );
    choice.value = keep;
    status.textContent =
      found.total === 0 ? `No active member of this workspace matches “${text}”.` : found.total > found.items.length ? `${found.total} users match; the first ${found.items.length} are listed. Type more to narrow it.` : found.total === 1 ? "1 user matches." : `${found.total} users match.`;
  };
  let timer = 0;
  search.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, 200);
  });
  workspace.addEventListener("change", refresh);
  if (preset) refresh();
  return {
    fields: [
      field("Find a user (optional)", search, "Part of a userName, name or e-mail; matching active members of the workspace are listed"),
      el("div", { class: "field-with-error" }, field("For user", choice), status),
    ],
    /** The chosen user's id, or null for nobody; throws when a search was typed but no user chosen. */
    async userId() {
      const text = search.value.trim();
      if (listed !== workspace.value + "|" + text) {
        clearTimeout(timer);
        await refresh(); // submitted before the list caught up with the typing
      }
      if (choice.value) return Number(choice.value);
      if (!text) return null;
      throw new Error(choice.options.length > 1 ? `Choose the user for “${text}” in the list, or clear the search.` : `No active member of this workspace matches “${text}”.`);
    },
    focus: () => (choice.options.length > 1 ? choice : search).focus(),
  };
}

/** `tokens`: the {total, items} page of GET /api-tokens. */
function draw(box, tokens, workspaces, presetUser) {
  const name = el("input", { maxlength: "200", required: true, autocomplete: "off" });
  const live = workspaces.filter((w) => !w.archived);
  const workspace = select(live.map((w) => [String(w.id), w.name]), "1");
  const user = userPicker(workspace, presetUser);
  const submit = el("button", { type: "submit" }, "Create token");
  const error = errorSlot();
  const userError = errorSlot();
  const created = el("div", { class: "created" });
  const form = el(
    "form",
    { class: "inline-form", "aria-label": "Create an API token" },
    field("Token name", name, "What it is for, e.g. “CI reporter”"),
    field("Workspace", workspace, "The token reaches this workspace's projects only"),
    user.fields,
    userError,
    el("div", { class: "actions" }, submit),
    error,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    userError.show("");
    await busy(submit, error, async () => {
      let userId;
      try {
        userId = await user.userId();
      } catch (e) {
        userError.show(e.message);
        return user.focus();
      }
      const t = await api("POST", "/api-tokens", { name: name.value.trim(), userId, workspaceId: Number(workspace.value) });
      draw(box, await api("GET", "/api-tokens"), workspaces, "");
      const secret = secretBox(`API token “${t.name}” created`, t.token, "the API token");
      box.querySelector(".created").replaceChildren(secret);
      secret.focus();
    });
  });
  const workspaceName = (id) => workspaces.find((w) => w.id === id)?.name ?? "workspace " + id;
  const rows = tokens.items.map((t) => {
    const revoke = el("button", { type: "button", class: "danger small", "aria-label": `Revoke API token ${t.name}` }, "Revoke");
    const rowError = errorSlot();
    revoke.addEventListener("click", async () => {
      if (!(await confirmDialog(`Revoke “${t.name}”?`, "Clients using this token get 401 from their next call. This cannot be undone.", "Revoke token"))) return;
      await busy(revoke, rowError, async () => {
        await api("DELETE", "/api-tokens/" + t.id);
        draw(box, await api("GET", "/api-tokens"), workspaces, "");
      });
    });
    return el(
      "tr",
      {},
      el("td", {}, t.name),
      el("td", {}, workspaceName(t.workspaceId)),
      el("td", {}, t.userId ? el("a", { href: "#/users/" + t.userId }, t.userName || "user " + t.userId) : el("span", { class: "muted" }, "—")),
      el("td", {}, time(t.createdAt)),
      el("td", {}, time(t.lastUsedAt)),
      el("td", {}, t.revokedAt ? [badge("revoked", "bad"), " ", time(t.revokedAt)] : badge("active", "ok")),
      el("td", {}, t.revokedAt ? "" : [revoke, rowError]),
    );
  });
  box.replaceChildren(form, created, el("h2", {}, "Tokens"), table("API tokens", ["Name", "Workspace", "User", "Created", "Last used", "State", "Actions"], rows, "No API tokens yet."));
}
