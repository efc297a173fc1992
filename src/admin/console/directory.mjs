// The directory, read-only: the identity provider owns users and groups (SCIM writes them).
import { api, qs } from "./api.mjs";
import { badge, el, facts, filterForm, pager, select, table, time } from "./dom.mjs";

const LIMIT = 50;
const readOnlyNote = () => el("p", { class: "hint" }, "Read-only: your identity provider owns users and groups and changes them through SCIM.");
const workspaceSelect = (workspaces, value) => select([["", "All workspaces"], ...workspaces.map((w) => [String(w.id), w.name + (w.archived ? " (archived)" : "")])], value);
const state = (active) => badge(active ? "active" : "deactivated", active ? "ok" : "bad");

export async function renderUsers(view) {
  const { page, query } = view;
  const filters = { q: query.get("q") || "", active: query.get("active") || "", userType: query.get("userType") || "", workspaceId: query.get("workspaceId") || "" };
  const offset = Number(query.get("offset") || 0);
  const [users, { items: workspaces }] = await Promise.all([api("GET", "/directory/users" + qs({ ...filters, limit: LIMIT, offset })), api("GET", "/workspaces")]);
  if (!view.current) return;
  const form = filterForm(view, "Search users", "Search", {
    q: ["Name or e-mail", el("input", { type: "search", value: filters.q, maxlength: "200" })],
    active: ["State", select([["", "Active and deactivated"], ["true", "Active"], ["false", "Deactivated"]], filters.active)],
    userType: ["Type", select([["", "Any type"], ["regular", "Regular"], ["read-only", "Read-only"], ["billing", "Billing"]], filters.userType)],
    workspaceId: ["Workspace", workspaceSelect(workspaces, filters.workspaceId)],
  });
  const rows = users.items.map((u) =>
    el(
      "tr",
      {},
      el("td", {}, el("a", { href: "#/users/" + u.id }, u.userName)),
      el("td", {}, u.displayName),
      el("td", { class: "wrap" }, u.emails.join(", ")),
      el("td", {}, u.userType),
      el("td", {}, state(u.active)),
    ),
  );
  page.append(
    el("h1", { tabindex: "-1" }, "Users"),
    readOnlyNote(),
    form,
    table("Users", ["userName", "Name", "E-mail", "Type", "State"], rows, "No users match."),
    pager("users", users, (o) => view.setQuery({ ...filters, offset: o })),
  );
}

/**
 * The page for a user or group id that is not there (a provisioning-log entry of a write the IdP
 * made on an unknown id, a deleted group, an old bookmark): says so, and where to look instead.
 * Any other failure is the router's "Something went wrong".
 */
async function orMissing(view, kind, load) {
  try {
    return await load();
  } catch (e) {
    if (e.status !== 404) throw e;
    if (!view.current) return null;
    const id = view.params[0];
    const list = kind === "user" ? ["#/users", "Users"] : ["#/groups", "Groups"];
    view.page.append(
      el("p", { class: "crumbs" }, el("a", { href: list[0] }, list[1]), " / "),
      el("h1", { tabindex: "-1" }, `No ${kind} ${id}`),
      el("p", {}, kind === "user" ? `No user has the id ${id}. Users are never deleted, so it never existed: an identity provider wrote to an id Gatehouse did not give out.` : `No group has the id ${id}: it was deleted, or never existed.`),
      el(
        "ul",
        { class: "plain" },
        el("li", {}, el("a", { href: `#/provisioning?resourceType=${kind === "user" ? "User" : "Group"}&resourceId=${encodeURIComponent(id)}` }, "Provisioning log entries for this id")),
        el("li", {}, el("a", { href: list[0] }, "All " + list[1].toLowerCase())),
      ),
    );
    return null;
  }
}

export async function renderUser(view) {
  const { page } = view;
  const u = await orMissing(view, "user", () => api("GET", "/directory/users/" + encodeURIComponent(view.params[0])));
  if (!u || !view.current) return;
  page.append(
    el("p", { class: "crumbs" }, el("a", { href: "#/users" }, "Users"), " / "),
    el("h1", { tabindex: "-1" }, u.displayName || u.userName),
    readOnlyNote(),
    el(
      "div",
      { class: "card" },
      facts([
        ["userName", u.userName],
        ["State", state(u.active)],
        ["Type", u.userType],
        ["E-mail", u.emails.length ? u.emails.join(", ") : "—"],
        ["Workspaces", u.workspaces.length ? u.workspaces.map((w) => w.name).join(", ") : "none"],
        ["Id", String(u.id)],
        ["externalId", u.externalId || "—"],
        ["Created", time(u.createdAt)],
        ["Updated", time(u.updatedAt)],
      ]),
    ),
    el("h2", {}, "Groups"),
    u.groups.length ? el("ul", { class: "plain" }, u.groups.map((g) => el("li", {}, el("a", { href: "#/groups/" + encodeURIComponent(g.id) }, g.displayName), el("span", { class: "muted" }, " in " + g.workspace.name)))) : el("p", { class: "empty" }, "Not in any group."),
    el("h2", {}, "API tokens"),
    table(
      "API tokens of " + u.userName,
      ["Name", "Created", "Last used", "State"],
      u.apiTokens.map((t) => el("tr", {}, el("td", {}, t.name), el("td", {}, time(t.createdAt)), el("td", {}, time(t.lastUsedAt)), el("td", {}, t.revokedAt ? badge("revoked", "bad") : badge("active", "ok")))),
      "No API tokens. Create one on the API tokens page.",
    ),
    el("p", {}, el("a", { href: "#/api-tokens?user=" + encodeURIComponent(u.userName) }, "Create an API token for " + u.userName)),
    el("h2", {}, "Provisioning history"),
    el("p", {}, el("a", { href: "#/provisioning?resourceType=User&q=" + encodeURIComponent(u.userName) }, "Provisioning log entries for " + u.userName)),
  );
}

export async function renderGroups(view) {
  const { page, query } = view;
  const q = query.get("q") || "";
  const workspaceId = query.get("workspaceId") || "";
  const offset = Number(query.get("offset") || 0);
  const [groups, { items: workspaces }] = await Promise.all([api("GET", "/directory/groups" + qs({ q, workspaceId, limit: LIMIT, offset })), api("GET", "/workspaces")]);
  if (!view.current) return;
  const form = filterForm(view, "Search groups", "Search", {
    q: ["Group name", el("input", { type: "search", value: q, maxlength: "200" })],
    workspaceId: ["Workspace", workspaceSelect(workspaces, workspaceId)],
  });
  page.append(
    el("h1", { tabindex: "-1" }, "Groups"),
    readOnlyNote(),
    form,
    table(
      "Groups",
      ["Name", "Workspace", "Members", "externalId"],
      groups.items.map((g) =>
        el("tr", {}, el("td", {}, el("a", { href: "#/groups/" + encodeURIComponent(g.id) }, g.displayName)), el("td", {}, g.workspace.name), el("td", {}, String(g.members)), el("td", {}, g.externalId || "—")),
      ),
      "No groups match.",
    ),
    pager("groups", groups, (o) => view.setQuery({ q, workspaceId, offset: o })),
  );
}

export async function renderGroup(view) {
  const { page } = view;
  const g = await orMissing(view, "group", () => api("GET", "/directory/groups/" + encodeURIComponent(view.params[0])));
  if (!g || !view.current) return;
  page.append(
    el("p", { class: "crumbs" }, el("a", { href: "#/groups" }, "Groups"), " / "),
    el("h1", { tabindex: "-1" }, g.displayName),
    readOnlyNote(),
    el("p", {}, g.members + (g.members === 1 ? " member" : " members") + " · workspace " + g.workspace.name),
    table(
      "Members of " + g.displayName,
      ["userName", "Name", "State"],
      g.memberList.map((m) => el("tr", {}, el("td", {}, el("a", { href: "#/users/" + m.id }, m.userName)), el("td", {}, m.displayName), el("td", {}, state(m.active)))),
      "This group has no members.",
    ),
  );
}
