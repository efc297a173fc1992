// The provisioning activity log: every SCIM write by an identity provider, with its outcome.
import { api, download, qs } from "./api.mjs";
import { badge, busy, el, errorSlot, filterForm, pager, select, table, time, timeInput } from "./dom.mjs";

const LIMIT = 50;

export async function render(view) {
  const { page, query } = view;
  const filters = {
    outcome: query.get("outcome") || "",
    operation: query.get("operation") || "",
    resourceType: query.get("resourceType") || "",
    q: query.get("q") || "",
    tokenId: query.get("tokenId") || "",
    resourceId: query.get("resourceId") || "",
    since: query.get("since") || "",
    until: query.get("until") || "",
  };
  const offset = Number(query.get("offset") || 0);
  const [log, tokens] = await Promise.all([api("GET", "/provisioning-log" + qs({ ...filters, limit: LIMIT, offset })), api("GET", "/scim-tokens")]);
  if (!view.current) return;

  const form = filterForm(view, "Filter the provisioning log", "Filter", {
    outcome: ["Outcome", select([["", "Any outcome"], ["success", "Succeeded"], ["failure", "Failed"]], filters.outcome)],
    operation: ["Operation", select([["", "Any operation"], ["create", "Create"], ["replace", "Replace"], ["update", "Update"], ["delete", "Delete / deactivate"]], filters.operation)],
    resourceType: ["Resource", select([["", "Users and groups"], ["User", "Users"], ["Group", "Groups"]], filters.resourceType)],
    tokenId: ["Token", select([["", "Any token"], ...tokens.map((t) => [String(t.id), t.name])], filters.tokenId)],
    q: ["Name contains", el("input", { type: "search", value: filters.q, maxlength: "200" })],
    resourceId: ["Resource id", el("input", { type: "search", value: filters.resourceId, maxlength: "200" })],
    since: ["From (your local time)", timeInput(filters.since)],
    until: ["Until (your local time)", timeInput(filters.until)],
  });

  const exportError = errorSlot();
  const exports = ["csv", "ndjson"].map((format) => {
    const b = el("button", { type: "button", class: "secondary" }, "Export " + format.toUpperCase());
    b.addEventListener("click", () => busy(b, exportError, () => download("/provisioning-log/export" + qs({ ...filters, format }))));
    return b;
  });

  const rows = log.items.map((e) => {
    const ok = e.status >= 200 && e.status < 300;
    // A write refused with 404 named an id that does not exist: nothing to link to.
    const resource = e.resourceId && e.status !== 404
      ? el("a", { href: e.resourceType === "User" ? "#/users/" + encodeURIComponent(e.resourceId) : "#/groups/" + encodeURIComponent(e.resourceId) }, e.resourceName || e.resourceId)
      : e.resourceId
        ? [e.resourceName || e.resourceId, el("span", { class: "muted" }, " (no such " + e.resourceType.toLowerCase() + ")")]
        : e.resourceName || el("span", { class: "muted" }, "—");
    return el(
      "tr",
      {},
      el("td", { class: "nowrap" }, time(e.at)),
      el("td", {}, e.token.name),
      el("td", {}, e.operation + " " + e.resourceType.toLowerCase()),
      el("td", { class: "wrap" }, resource),
      el("td", {}, badge(String(e.status), ok ? "ok" : "bad")),
      el("td", { class: "wrap" }, ok ? "" : [e.scimType ? el("code", {}, e.scimType) : "", e.scimType && e.detail ? " " : "", e.detail || ""]),
      el("td", {}, el("code", { class: "small" }, e.requestId)),
    );
  });
  page.append(
    el("h1", { tabindex: "-1" }, "Provisioning log"),
    el("p", { class: "hint" }, "Every write an identity provider made through SCIM (create, replace, update, delete), with the answer it got. Reads are not logged. The export takes the filters and the time range shown."),
    form,
    el("div", { class: "action-row" }, exports, exportError),
    table("Provisioning log", ["Time", "Token", "Operation", "Resource", "Status", "Error", "Request id"], rows, "No provisioning activity matches."),
    pager("the provisioning log", log, (o) => view.setQuery({ ...filters, offset: o })),
  );
}
