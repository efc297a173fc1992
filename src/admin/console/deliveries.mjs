// One delivery: the request sent and the response received, attempt by attempt, and Redeliver.
import { api } from "./api.mjs";
import { badge, busy, el, errorSlot, facts, time } from "./dom.mjs";

const headerTable = (label, headers) =>
  Object.keys(headers).length === 0
    ? el("p", { class: "empty" }, "No headers.")
    : el(
        "div",
        { class: "table-wrap", role: "region", "aria-label": label, tabindex: "0" },
        el("table", { class: "headers" }, el("caption", { class: "visually-hidden" }, label), el("tbody", {}, Object.entries(headers).map(([k, v]) => el("tr", {}, el("th", { scope: "row" }, k), el("td", {}, el("code", {}, v)))))),
      );

/** A body as text, pretty-printed when it is JSON. */
function bodyBlock(label, text) {
  if (text === null || text === undefined) return el("p", { class: "empty" }, "No body.");
  if (text === "") return el("p", { class: "empty" }, "Empty body.");
  let shown = text;
  try {
    shown = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    /* not JSON: shown as received */
  }
  return el("pre", { tabindex: "0", "aria-label": label }, shown);
}

const statusBadge = (d) => badge(d.inFlight ? "in flight" : d.status, d.status === "delivered" ? "ok" : d.status === "failed" ? "bad" : "warn");

function summary(d) {
  return facts([
    ["Status", [statusBadge(d), d.lastError ? " — " + d.lastError : ""]],
    ["webhook-id", el("code", {}, d.webhookId)],
    ["Created", time(d.createdAt)],
    ["Finished", time(d.finishedAt)],
    ["Next attempt", d.nextAttemptAt ? time(d.nextAttemptAt) : "—"],
    ["Attempts in this cycle", String(d.attemptCount)],
  ]);
}

/** One attempt: its request and response, under a heading that opens and closes it. */
function attemptCard(d, a, i, open) {
  const ok = a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300;
  const sentBody = JSON.stringify({ event: d.event, timestamp: d.timestamp, payload: d.payload });
  return el(
    "section",
    { class: "card attempt", "aria-labelledby": "attempt-" + i },
    el(
      "details",
      { open },
      el(
        "summary",
        {},
        el(
          "h3",
          { id: "attempt-" + i },
          `Attempt ${i + 1}`,
          a.cycleAttempt ? el("span", { class: "muted" }, ` (${a.cycleAttempt} of its cycle)`) : "",
          " — ",
          a.statusCode !== null ? badge("HTTP " + a.statusCode, ok ? "ok" : "bad") : badge(a.error || "no response", "bad"),
          el("span", { class: "muted small" }, " · ", time(a.startedAt)),
        ),
      ),
      el(
        "div",
        { class: "grid-2" },
        el(
          "div",
          {},
          el("h4", {}, "Request"),
          facts([["Sent", time(a.startedAt)], ["To", el("code", { class: "wrap" }, "POST " + a.url)]]),
          headerTable(`Request headers of attempt ${i + 1}`, a.requestHeaders),
          bodyBlock(`Request body of attempt ${i + 1}`, sentBody),
        ),
        el(
          "div",
          {},
          el("h4", {}, "Response"),
          facts([["Status", a.statusCode !== null ? String(a.statusCode) : "none"], ["Duration", a.durationMs + " ms"], a.error && ["Error", a.error]]),
          a.responseHeaders ? headerTable(`Response headers of attempt ${i + 1}`, a.responseHeaders) : el("p", { class: "empty" }, "No response headers recorded."),
          bodyBlock(`Response body of attempt ${i + 1}`, a.responseBody),
        ),
      ),
    ),
  );
}

/**
 * The attempts, newest first: the newest open, older ones closed (nine expanded attempts made a
 * 7 600 px page). A redelivery's marker sits below the first attempt of its cycle.
 */
function attemptList(d) {
  if (d.attempts.length === 0) return [el("h2", {}, "No attempts"), el("p", { class: "empty" }, "Not attempted yet.")];
  const nodes = [el("h2", {}, d.attempts.length === 1 ? "1 attempt, newest first" : d.attempts.length + " attempts, newest first")];
  for (let i = d.attempts.length - 1; i >= 0; i--) {
    const a = d.attempts[i];
    nodes.push(attemptCard(d, a, i, i === d.attempts.length - 1));
    if (a.redelivery) nodes.push(el("p", { class: "marker", role: "note" }, "Redelivery started here (the attempts above) — a new retry cycle with the same webhook-id"));
  }
  return nodes;
}

/** Polls the delivery until it has more than `seen` attempts and none is in flight (at most `ms`). */
async function nextAttempt(id, seen, view, ms = 30_000) {
  const until = Date.now() + ms;
  for (;;) {
    const d = await api("GET", "/deliveries/" + id);
    if ((d.attempts.length > seen && !d.inFlight) || Date.now() > until || !view.current) return d;
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function renderDelivery(view) {
  const [subId, deliveryId] = view.params;
  const [sub, d] = await Promise.all([api("GET", "/webhooks/" + subId), api("GET", "/deliveries/" + deliveryId)]);
  if (!view.current) return;
  const back = "#/webhooks/" + subId + (view.query.get("from") ? "?" + view.query.get("from") : "");
  const { page } = view;
  const facts = el("div", {}, summary(d));
  const attempts = el("div", {}, attemptList(d));
  const redeliver = el("button", { type: "button" }, "Redeliver");
  const error = errorSlot();
  const done = el("p", { role: "status", class: "note", hidden: true });
  redeliver.addEventListener("click", () =>
    busy(redeliver, error, async () => {
      const seen = (await api("GET", "/deliveries/" + d.id)).attempts.length;
      await api("POST", `/deliveries/${d.id}/redeliver`);
      done.hidden = false;
      done.textContent = "Queued for redelivery with the same webhook-id; waiting for the new attempt…";
      const now = await nextAttempt(d.id, seen, view);
      if (!view.current) return;
      facts.replaceChildren(summary(now));
      attempts.replaceChildren(...attemptList(now));
      const newest = now.attempts[now.attempts.length - 1];
      done.textContent =
        now.attempts.length > seen
          ? `Redelivered: attempt ${now.attempts.length} answered ${newest.statusCode !== null ? "HTTP " + newest.statusCode : newest.error || "nothing"}. It is the first attempt below.`
          : "Queued for redelivery with the same webhook-id; no attempt yet (the next one shows when you reload).";
    }),
  );
  page.append(
    el("p", { class: "crumbs" }, el("a", { href: "#/webhooks" }, "Webhooks"), " / ", el("a", { href: back }, sub.description || sub.url), " / "),
    el("h1", { tabindex: "-1" }, `Delivery ${d.id}: `, el("code", {}, d.event)),
    el("p", {}, el("a", { href: back }, "← Back to the delivery log")),
    el("div", { class: "card" }, facts, el("div", { class: "actions" }, redeliver), error, done),
    attempts,
  );
}
