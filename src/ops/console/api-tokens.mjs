// API tokens: the `Token` credentials of reporters and Qase clients, optionally attributed to a user.
import { api, qs } from "./api.mjs";
import { badge, busy, confirmDialog, el, errorSlot, field, secretBox, table, time } from "./dom.mjs";

export async function render(view) {
  const { page } = view;
  const tokens = await api("GET", "/api-tokens");
  if (!view.current) return;
  const box = el("div");
  page.append(el("h1", { tabindex: "-1" }, "API tokens"), el("p", { class: "hint" }, "For test reporters and Qase clients (the Token header of /api/v1 and /api/v2). A token attributed to a user stops working when that user is deactivated."), box);
  draw(box, tokens, view.query.get("user") || "");
}

/** The directory user an admin typed (userName or e-mail), or an error naming the problem. */
async function resolveUser(text) {
  const found = await api("GET", "/directory/users" + qs({ q: text, limit: 20 }));
  const exact = found.items.filter((u) => u.userName.toLowerCase() === text.toLowerCase() || u.emails.some((e) => e.toLowerCase() === text.toLowerCase()));
  const pick = exact.length === 1 ? exact[0] : found.items.length === 1 ? found.items[0] : null;
  if (pick) return pick;
  throw new Error(found.items.length === 0 ? `No user matches “${text}”.` : `${found.total} users match “${text}”; type the whole userName.`);
}

/** `tokens`: the {total, items} page of GET /api-tokens. */
function draw(box, tokens, presetUser) {
  const name = el("input", { maxlength: "200", required: true, autocomplete: "off" });
  const user = el("input", { maxlength: "200", autocomplete: "off", value: presetUser });
  const submit = el("button", { type: "submit" }, "Create token");
  const error = errorSlot();
  const userError = errorSlot();
  const created = el("div");
  const form = el(
    "form",
    { class: "inline-form", "aria-label": "Create an API token" },
    field("Token name", name, "What it is for, e.g. “CI reporter”"),
    el("div", { class: "field-with-error" }, field("For user (optional)", user, "userName or e-mail of a directory user"), userError),
    el("div", { class: "actions" }, submit),
    error,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    userError.show("");
    await busy(submit, error, async () => {
      let userId = null;
      if (user.value.trim()) {
        try {
          userId = (await resolveUser(user.value.trim())).id;
        } catch (e) {
          userError.show(e.message);
          user.focus();
          return;
        }
      }
      const t = await api("POST", "/api-tokens", { name: name.value.trim(), userId });
      draw(box, await api("GET", "/api-tokens"), "");
      const secret = secretBox(`API token “${t.name}” created`, t.token, "the API token");
      box.querySelector(".created").replaceChildren(secret);
      secret.focus();
    });
  });
  const rows = tokens.items.map((t) => {
    const revoke = el("button", { type: "button", class: "danger small", "aria-label": `Revoke API token ${t.name}` }, "Revoke");
    const rowError = errorSlot();
    revoke.addEventListener("click", async () => {
      if (!(await confirmDialog(`Revoke “${t.name}”?`, "Clients using this token get 401 from their next call. This cannot be undone.", "Revoke token"))) return;
      await busy(revoke, rowError, async () => {
        await api("DELETE", "/api-tokens/" + t.id);
        draw(box, await api("GET", "/api-tokens"), "");
      });
    });
    return el(
      "tr",
      {},
      el("td", {}, t.name),
      el("td", {}, t.userId ? el("a", { href: "#/users/" + t.userId }, t.userName || "user " + t.userId) : el("span", { class: "muted" }, "—")),
      el("td", {}, time(t.createdAt)),
      el("td", {}, time(t.lastUsedAt)),
      el("td", {}, t.revokedAt ? [badge("revoked", "bad"), " ", time(t.revokedAt)] : badge("active", "ok")),
      el("td", {}, t.revokedAt ? "" : [revoke, rowError]),
    );
  });
  box.replaceChildren(form, created, el("h2", {}, "Tokens"), table("API tokens", ["Name", "User", "Created", "Last used", "State", "Actions"], rows, "No API tokens yet."));
  created.className = "created";
}
