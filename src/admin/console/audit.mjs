// The audit log: every admin action, sign-in and refusal — who, when, from where, what, outcome.
import { api, download, qs } from "./api.mjs";
import { badge, busy, el, errorSlot, filterForm, pager, select, table, time, timeInput } from "./dom.mjs";

const LIMIT = 50;
const FAMILIES = [
  ["", "Any action"],
  ["session.", "Sign-in and sign-out"],
  ["scim.", "SCIM on/off"],
  ["scim_token.", "SCIM tokens"],
  ["api_token.", "API tokens"],
  ["admin_token.", "Admin tokens"],
  ["workspace.", "Workspaces"],
  ["webhook.", "Webhooks"],
  ["delivery.", "Deliveries"],
  ["access.", "Refused requests"],
];
const KINDS = { person: "person", "env-token": "GATEHOUSE_ADMIN_TOKEN", "admin-token": "admin token", anonymous: "not signed in" };

export async function render(view) {
  const { page, query } = view;
  const filters = {
    action: query.get("action") || "",
    outcome: query.get("outcome") || "",
    actor: query.get("actor") || "",
    since: query.get("since") || "",
    until: query.get("until") || "",
  };
  const offset = Number(query.get("offset") || 0);
  const log = await api("GET", "/audit-log" + qs({ ...filters, limit: LIMIT, offset }));
  if (!view.current) return;

  const form = filterForm(view, "Filter the audit log", "Filter", {
    action: ["Action", select(FAMILIES, filters.action)],
    outcome: ["Outcome", select([["", "Any outcome"], ["success", "Succeeded"], ["failure", "Failed"], ["denied", "Denied"]], filters.outcome)],
    actor: ["Who (exact name)", el("input", { type: "search", value: filters.actor, maxlength: "200" })],
    since: ["From (your local time)", timeInput(filters.since)],
    until: ["Until (your local time)", timeInput(filters.until)],
  });

  const exportError = errorSlot();
  const exports = ["csv", "ndjson"].map((format) => {
    const b = el("button", { type: "button", class: "secondary" }, "Export " + format.toUpperCase());
    b.addEventListener("click", () => busy(b, exportError, () => download("/audit-log/export" + qs({ ...filters, format }))));
    return b;
  });

  const rows = log.items.map((e) =>
    el(
      "tr",
      {},
      el("td", { class: "nowrap" }, time(e.at)),
      el("td", {}, el("strong", {}, e.actor.name), el("br"), el("span", { class: "muted small" }, [KINDS[e.actor.kind] || e.actor.kind, e.actor.role ? ", " + e.actor.role : ""])),
      el("td", {}, el("code", {}, e.action)),
      el("td", { class: "wrap" }, e.resource ? [e.resource.type, e.resource.id ? " " + e.resource.id : ""] : el("span", { class: "muted" }, "—")),
      el("td", {}, badge(e.outcome, e.outcome === "success" ? "ok" : e.outcome === "denied" ? "bad" : "warn"), e.detail ? [el("br"), el("span", { class: "small" }, e.detail)] : ""),
      el("td", { class: "nowrap" }, e.source.ip || el("span", { class: "muted" }, "—")),
      el("td", { class: "wrap" }, e.summary ? el("details", {}, el("summary", {}, "Changes"), el("pre", { class: "small" }, JSON.stringify(e.summary, null, 2))) : ""),
    ),
  );
  page.append(
    el("h1", { tabindex: "-1" }, "Audit log"),
    el("p", { class: "hint" }, "Every admin action, sign-in and refused request: who (person or token, and their role), when, from where, what changed, and the outcome. Secrets are never recorded."),
    form,
    el("div", { class: "action-row" }, exports, exportError),
    table("Audit log", ["Time", "Who", "Action", "Resource", "Outcome", "From", "Details"], rows, "No audit entries match."),
    pager("the audit log", log, (o) => view.setQuery({ ...filters, offset: o })),
  );
}
