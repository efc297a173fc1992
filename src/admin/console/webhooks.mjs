// Webhook subscriptions: list, create, and one subscription's page (health, actions, edit, delivery log).
import { api, qs } from "./api.mjs";
import { ago, badge, busy, confirmDialog, el, errorSlot, facts, field, filterForm, isoToLocal, pager, secretBox, select, skipTo, table, time } from "./dom.mjs";

let catalog = null;
/** The event catalog (name + when it is sent), loaded once per page load. */
async function events() {
  catalog ??= (await api("GET", "/webhooks/events")).items;
  return catalog;
}

const stateBadge = (s) => (s.enabled ? (s.failingSince ? badge("failing", "warn") : badge("enabled", "ok")) : badge("disabled", "bad"));

export async function renderList(view) {
  const { items } = await api("GET", "/webhooks");
  if (!view.current) return;
  const rows = items.map((s) =>
    el(
      "tr",
      {},
      el("td", { class: "wrap" }, el("a", { href: "#/webhooks/" + s.id }, s.url), s.description ? el("div", { class: "hint" }, s.description) : ""),
      el("td", { class: "wrap" }, s.events.includes("*") ? "all events" : s.events.join(", ")),
      el("td", {}, s.project || el("span", { class: "muted" }, "all")),
      el("td", {}, stateBadge(s), s.failingSince ? el("div", { class: "hint" }, "since " + ago(s.failingSince)) : "", s.disabledReason ? el("div", { class: "hint" }, s.disabledReason) : ""),
      el("td", {}, time(s.lastSuccessAt)),
    ),
  );
  view.page.append(
    el("h1", { tabindex: "-1" }, "Webhooks"),
    el("p", {}, el("a", { href: "#/webhooks/new", class: "button" }, "New subscription")),
    table("Webhook subscriptions", ["Endpoint", "Events", "Project", "State", "Last success"], rows, "No webhook subscriptions yet."),
  );
}

/**
 * The subscription form (create and edit): URL, the event picker built from the catalog (with
 * what each event means), project filter, description. `onSubmit(body)` does the call.
 */
async function subscriptionForm(initial, submitLabel, onSubmit) {
  const [all, { items: workspaces }, { items: projects }] = await Promise.all([events(), api("GET", "/workspaces"), api("GET", "/projects")]);
  const workspace = select([["", "Every workspace"], ...workspaces.map((w) => [String(w.id), w.name + (w.archived ? " (archived)" : "")])], initial.workspace ? String(initial.workspace) : "");
  const url = el("input", { type: "url", required: true, maxlength: "2048", value: initial.url || "", autocomplete: "off" });
  const project = projectPicker(projects, workspaces, workspace, initial.project || "");
  const description = el("input", { maxlength: "1000", value: initial.description || "", autocomplete: "off" });
  const everything = !initial.events || initial.events.includes("*");
  const allRadio = el("input", { type: "radio", name: "event-scope", value: "all", id: "scope-all", checked: everything });
  const someRadio = el("input", { type: "radio", name: "event-scope", value: "some", id: "scope-some", checked: !everything });
  const boxes = all.map((e) =>
    el("input", { type: "checkbox", value: e.name, id: "ev-" + e.name.replace(/\W/g, "-"), checked: !everything && initial.events.includes(e.name), "aria-describedby": "ev-" + e.name.replace(/\W/g, "-") + "-d" }),
  );
  const groups = new Map();
  all.forEach((e, i) => {
    const entity = e.name.split(".")[0];
    if (!groups.has(entity)) groups.set(entity, []);
    groups.get(entity).push(
      el("div", { class: "check" }, boxes[i], el("label", { for: boxes[i].id }, el("code", {}, e.name)), el("span", { class: "hint", id: boxes[i].id + "-d" }, e.trigger)),
    );
  });
  const picker = el(
    "div",
    { class: "event-groups" },
    [...groups].map(([entity, items]) => el("fieldset", { class: "event-group" }, el("legend", {}, entity.replace("_", " ")), items)),
  );
  const syncPicker = () => {
    picker.hidden = allRadio.checked;
    for (const b of boxes) b.disabled = allRadio.checked;
  };
  allRadio.addEventListener("change", syncPicker);
  someRadio.addEventListener("change", syncPicker);
  syncPicker();
  const eventsError = errorSlot();
  const urlError = errorSlot();
  const projectError = errorSlot();
  const error = errorSlot();
  const submit = el("button", { type: "submit" }, submitLabel);
  const form = el(
    "form",
    { class: "stack", "aria-label": submitLabel },
    el("div", { class: "field-with-error" }, field("Endpoint URL", url, "An http or https address, without credentials in it. Each delivery is a signed POST."), urlError),
    el(
      "fieldset",
      { class: "events" },
      el("legend", {}, "Events"),
      el("div", { class: "check" }, allRadio, el("label", { for: "scope-all" }, "All events, including ones added in later versions")),
      el("div", { class: "check" }, someRadio, el("label", { for: "scope-some" }, "Only these events:")),
      picker,
      eventsError,
    ),
    field("Workspace", workspace, "Only events of that workspace's projects are sent."),
    el("div", { class: "field-with-error" }, field("Project (optional)", project, "Only that project's events are sent. The choices are the chosen workspace's projects."), projectError),
    field("Description (optional)", description),
    el("div", { class: "actions" }, submit),
    error,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    urlError.show("");
    projectError.show("");
    eventsError.show("");
    const chosen = allRadio.checked ? ["*"] : boxes.filter((b) => b.checked).map((b) => b.value);
    if (chosen.length === 0) {
      eventsError.show("Choose at least one event, or all events.");
      return boxes[0].focus();
    }
    await busy(submit, error, async () => {
      try {
        await onSubmit({ url: url.value.trim(), events: chosen, workspace: workspace.value ? Number(workspace.value) : null, project: project.value.trim() || null, description: description.value.trim() });
      } catch (e) {
        // Shown next to the field the server named, once.
        if (e.field === "url") return urlError.show(e.message), url.focus();
        if (e.field === "events") return eventsError.show(e.message);
        if (e.field === "project") return projectError.show(e.message), project.focus();
        throw e;
      }
    });
  });
  return form;
}

/**
 * The project choice of a subscription: the projects of the chosen workspace (of every workspace
 * when none is chosen), refilled when the workspace changes. A stored code no project has any
 * more (its project was deleted) is shown, marked, rather than silently replaced.
 */
function projectPicker(projects, workspaces, workspace, stored) {
  const picker = el("select", {});
  const workspaceLabel = (id) => workspaces.find((w) => w.id === id)?.name ?? "workspace " + id;
  const fill = (wanted) => {
    const ws = workspace.value ? Number(workspace.value) : null;
    const choices = projects.filter((p) => ws === null || p.workspaceId === ws);
    const options = [["", "All projects"], ...choices.map((p) => [p.code, `${p.code} — ${p.title}` + (ws === null ? ` (${workspaceLabel(p.workspaceId)})` : "")])];
    if (wanted === stored && stored && !projects.some((p) => p.code === stored)) options.push([stored, `${stored} (no such project: choose another)`]);
    const value = options.some(([v]) => v === wanted) ? wanted : "";
    picker.replaceChildren(...options.map(([v, text]) => el("option", { value: v, selected: v === value }, text)));
    picker.value = value;
  };
  workspace.addEventListener("change", () => fill(picker.value));
  fill(stored);
  return picker;
}

export async function renderNew(view) {
  const holder = el("div");
  view.page.append(el("p", { class: "crumbs" }, el("a", { href: "#/webhooks" }, "Webhooks"), " / "), el("h1", { tabindex: "-1" }, "New subscription"), holder);
  const form = await subscriptionForm({}, "Create subscription", async (body) => {
    const created = await api("POST", "/webhooks", body);
    sessionStorage.setItem("gatehouse.newSecret", JSON.stringify({ id: created.id, secret: created.secret }));
    location.hash = "#/webhooks/" + created.id;
  });
  if (view.current) holder.append(form);
}

let workspaceNames = new Map();
const workspaceName = (id) => workspaceNames.get(id) ?? "workspace " + id;

export async function renderSubscription(view) {
  const id = view.params[0];
  const q = view.query;
  const filters = { status: q.get("status") || "", event: q.get("event") || "" };
  const offset = Number(q.get("offset") || 0);
  const [sub, health, log, all, { items: workspaces }] = await Promise.all([
    api("GET", "/webhooks/" + id),
    api("GET", "/webhooks/" + id + "/health"),
    api("GET", "/webhooks/" + id + "/deliveries" + qs({ ...filters, limit: 25, offset })),
    events(),
    api("GET", "/workspaces"),
  ]);
  if (!view.current) return;
  workspaceNames = new Map(workspaces.map((w) => [w.id, w.name]));
  const { page } = view;
  page.append(
    el("p", { class: "crumbs" }, el("a", { href: "#/webhooks" }, "Webhooks"), " / "),
    el("h1", { tabindex: "-1" }, sub.description || sub.url),
    skipTo("Skip to the delivery log", () => page.querySelector("#log-title")),
  );
  // A secret created on the previous page is shown once, here.
  const fresh = JSON.parse(sessionStorage.getItem("gatehouse.newSecret") || "null");
  sessionStorage.removeItem("gatehouse.newSecret");
  if (fresh && String(fresh.id) === String(id)) page.append(secretBox("Subscription created. Its signing secret", fresh.secret, "the signing secret"));

  page.append(
    el(
      "div",
      { class: "grid-2" },
      el(
        "section",
        { class: "card", "aria-labelledby": "sub-about" },
        el("h2", { id: "sub-about" }, "Subscription"),
        facts([
          ["State", [stateBadge(sub), sub.disabledReason ? el("div", { class: "hint" }, sub.disabledReason) : ""]],
          ["Endpoint", el("code", { class: "wrap" }, sub.url)],
          ["Events", sub.events.includes("*") ? "all events" : sub.events.join(", ")],
          ["Workspace", sub.workspace === null ? "every workspace" : workspaceName(sub.workspace)],
          ["Project", sub.project || "all projects"],
          ["Secret rotation", sub.previousSecretExpiresAt ? ["old secret signs until ", time(sub.previousSecretExpiresAt)] : "—"],
          ["Created", time(sub.createdAt)],
        ]),
      ),
      healthCard(id, health),
    ),
  );
  page.append(actions(view, sub, all));
  const edit = el("details", { class: "card" }, el("summary", {}, "Edit subscription"));
  page.append(edit);
  edit.append(
    await subscriptionForm(sub, "Save changes", async (body) => {
      await api("PATCH", "/webhooks/" + id, body);
      window.dispatchEvent(new HashChangeEvent("hashchange")); // same address: render it again
    }),
  );
  page.append(deliveryLog(view, id, log, filters, all));
}

function healthCard(id, h) {
  const rate = h.lastDay.successRate === null ? "no attempts in the last 24 h" : `${Math.round(h.lastDay.successRate * 1000) / 10}% (${h.lastDay.succeeded} of ${h.lastDay.attempts} attempts in the last 24 h)`;
  return el(
    "section",
    { class: "card", "aria-labelledby": "sub-health" },
    el("h2", { id: "sub-health" }, "Health"),
    h.failingSince
      ? el("p", { class: "alert-line" }, badge("failing", "warn"), " since ", time(h.failingSince), " (", ago(h.failingSince), ")")
      : el("p", {}, h.enabled ? badge("healthy", "ok") : badge("disabled", "bad")),
    facts([
      h.lastError && ["Last error", [el("a", { href: `#/webhooks/${id}/deliveries/${h.lastError.deliveryId}` }, h.lastError.error), " at ", time(h.lastError.at)]],
      ["Waiting for a retry", h.nextRetryAt ? [String(h.waitingRetries), " (next at ", time(h.nextRetryAt), ")"] : String(h.waitingRetries)],
      ["Pending deliveries", String(h.pending)],
      ["Success rate", rate],
      ["Last success", h.lastSuccessAt ? [time(h.lastSuccessAt), " (", ago(h.lastSuccessAt), ")"] : "never"],
    ]),
  );
}

function actions(view, sub, all) {
  const id = sub.id;
  const section = el("section", { class: "card", "aria-labelledby": "sub-actions" }, el("h2", { id: "sub-actions" }, "Actions"));
  const reload = () => window.dispatchEvent(new HashChangeEvent("hashchange")); // same address: render it again

  // Enable / disable / re-enable
  const toggleError = errorSlot();
  const toggle = el("button", { type: "button", class: sub.enabled ? "secondary" : "" }, sub.enabled ? "Disable" : sub.disabledReason ? "Re-enable" : "Enable");
  toggle.addEventListener("click", () =>
    busy(toggle, toggleError, async () => {
      await api("PATCH", "/webhooks/" + id, { enabled: !sub.enabled });
      reload();
    }),
  );
  section.append(
    el("div", { class: "action-row" }, el("p", {}, sub.enabled ? "Pause deliveries; they wait and go out when enabled again." : "Deliveries wait while disabled; enabling sends them."), toggle, toggleError),
  );

  // Test event of any type
  const testEvent = select(all.map((e) => [e.name, e.name]), "case.created");
  const testButton = el("button", { type: "button", class: "secondary" }, "Send test event");
  const testError = errorSlot();
  const testDone = el("p", { role: "status", class: "note", hidden: true });
  testButton.addEventListener("click", () =>
    busy(testButton, testError, async () => {
      const r = await api("POST", `/webhooks/${id}/test`, { event: testEvent.value });
      testDone.hidden = false;
      testDone.textContent = `Test ${testEvent.value} queued (delivery ${r.deliveryIds[0]}). It appears in the delivery log below.`;
    }),
  );
  section.append(el("div", { class: "action-row" }, field("Test event type", testEvent), testButton, testError, testDone));

  // Recover failed deliveries since a time
  const since = el("input", { type: "datetime-local", required: true, value: isoToLocal(new Date(Date.now() - 86_400_000).toISOString()) });
  const recoverButton = el("button", { type: "button", class: "secondary" }, "Recover failed deliveries");
  const recoverError = errorSlot();
  const recoverDone = el("p", { role: "status", class: "note", hidden: true });
  recoverButton.addEventListener("click", () =>
    busy(recoverButton, recoverError, async () => {
      const at = new Date(since.value);
      if (Number.isNaN(at.getTime())) throw new Error("Choose a date and time.");
      const r = await api("POST", `/webhooks/${id}/recover`, { since: at.toISOString() });
      recoverDone.hidden = false;
      recoverDone.textContent = r.requeued === 1 ? "1 failed delivery was queued again." : `${r.requeued} failed deliveries were queued again.`;
    }),
  );
  section.append(el("div", { class: "action-row" }, field("Failed since", since, "Your local time"), recoverButton, recoverError, recoverDone));

  // Rotate the secret
  const rotate = el("button", { type: "button", class: "secondary" }, "Rotate secret");
  const rotateError = errorSlot();
  const rotated = el("div");
  rotate.addEventListener("click", async () => {
    if (!(await confirmDialog("Rotate the signing secret?", "A new secret signs from now on. The old one keeps signing too (a second signature) for 24 hours, so your receiver can switch without losing requests.", "Rotate secret", false))) return;
    await busy(rotate, rotateError, async () => {
      const r = await api("POST", `/webhooks/${id}/rotate-secret`);
      const box = secretBox("New signing secret", r.secret, "the new signing secret");
      rotated.replaceChildren(box);
      box.focus();
    });
  });
  section.append(el("div", { class: "action-row" }, el("p", {}, "Replace the signing secret (the old one stays valid for 24 h)."), rotate, rotateError), rotated);

  // Delete
  const del = el("button", { type: "button", class: "danger" }, "Delete subscription");
  const delError = errorSlot();
  del.addEventListener("click", async () => {
    if (!(await confirmDialog("Delete this subscription?", `Deliveries to ${sub.url} stop, and its delivery log is deleted with it. This cannot be undone.`, "Delete subscription"))) return;
    await busy(del, delError, async () => {
      await api("DELETE", "/webhooks/" + id);
      location.hash = "#/webhooks";
    });
  });
  section.append(el("div", { class: "action-row" }, el("p", {}, "Stop and remove it, with its delivery log."), del, delError));
  return section;
}

function deliveryLog(view, id, log, filters, all) {
  const form = filterForm(view, "Filter deliveries", "Filter", {
    status: ["Status", select([["", "Any status"], ["pending", "Pending"], ["delivered", "Delivered"], ["failed", "Failed"]], filters.status)],
    event: ["Event type", select([["", "Any event"], ...all.map((e) => [e.name, e.name])], filters.event)],
  });
  const from = encodeURIComponent(view.query.toString());
  const rows = log.items.map((d) =>
    el(
      "tr",
      {},
      el("td", {}, el("a", { href: `#/webhooks/${id}/deliveries/${d.id}?from=${from}`, "aria-label": `Delivery ${d.id}: ${d.event}, ${d.status}` }, String(d.id))),
      el("td", {}, el("code", {}, d.event)),
      el("td", {}, badge(d.inFlight ? "in flight" : d.status, d.status === "delivered" ? "ok" : d.status === "failed" ? "bad" : "warn")),
      el("td", {}, String(d.attemptCount)),
      el("td", { class: "wrap" }, d.lastStatusCode !== null ? "HTTP " + d.lastStatusCode : d.lastError || "—"),
      el("td", {}, d.nextAttemptAt ? time(d.nextAttemptAt) : el("span", { class: "muted" }, "—")),
      el("td", { class: "nowrap" }, time(d.createdAt)),
    ),
  );
  return el(
    "section",
    { "aria-labelledby": "log-title" },
    el("h2", { id: "log-title" }, "Delivery log"),
    form,
    table("Deliveries", ["Id", "Event", "Status", "Attempts", "Last answer", "Next attempt", "Created"], rows, "No deliveries match."),
    pager("deliveries", log, (o) => view.setQuery({ ...filters, offset: o })),
  );
}
