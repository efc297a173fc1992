// Instance: what is running here and how it is doing.
import { api } from "./api.mjs";
import { bytes, el, facts, time } from "./dom.mjs";

function duration(seconds) {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return d > 0 ? `${d} d ${h} h` : h > 0 ? `${h} h ${m} min` : `${m} min ${seconds % 60} s`;
}

export async function render(view) {
  const i = await api("GET", "/instance");
  if (!view.current) return;
  view.page.append(
    el("h1", { tabindex: "-1" }, "Instance"),
    el(
      "div",
      { class: "card" },
      facts([
        ["Version", i.version + " (schema " + i.schemaVersion + ")"],
        ["Running since", [time(i.startedAt), " (", duration(i.uptimeSeconds), ")"]],
        ["Base URL", el("code", {}, i.baseUrl)],
        ["Database", bytes(i.database.sizeBytes) + " (write-ahead log " + bytes(i.database.walBytes) + ")"],
        ["Webhook backlog", i.webhooks.backlog + (i.webhooks.backlog === 1 ? " delivery pending" : " deliveries pending")],
        ["Subscriptions", i.webhooks.subscriptions + " (" + i.webhooks.disabledSubscriptions + " disabled)"],
      ]),
    ),
    el("h2", {}, "Links"),
    el(
      "ul",
      { class: "plain" },
      el("li", {}, el("a", { href: i.links.openapi }, "API reference (/openapi)")),
      el("li", {}, el("a", { href: i.links.metrics }, "Prometheus metrics (/metrics)"), el("span", { class: "hint" }, " — open from this host; elsewhere it needs the admin token as a bearer header")),
    ),
  );
}
