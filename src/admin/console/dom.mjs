// DOM helpers shared by every page. Values from the API only ever become text nodes or
// attribute values — never HTML — so a subscription URL or a response body cannot inject markup.

/** el("button", { class: "danger", onclick }, "Revoke") — children are nodes or text. */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (k === "class") node.className = v;
    else if (k === "value") node.value = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export const $ = (id) => document.getElementById(id);

// timeStyle "long" names the time zone ("14:05:09 UTC"): a time without one is ambiguous.
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "long" });
/** A time as the admin's locale shows it, with its time zone, in a <time> element with the exact ISO value. */
export function time(iso) {
  if (!iso) return el("span", { class: "muted" }, "—");
  return el("time", { datetime: iso, title: iso }, dateTime.format(new Date(iso)));
}

export function ago(iso) {
  if (!iso) return "never";
  const s = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (s < 60) return "just now";
  if (s < 3600) return Math.floor(s / 60) + " min ago";
  if (s < 86400) return Math.floor(s / 3600) + " h ago";
  return Math.floor(s / 86400) + " days ago";
}

export function bytes(n) {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) (n /= 1024), i++;
  return (i === 0 ? n : n.toFixed(1)) + " " + units[i];
}

/** A badge whose meaning is in its text, the colour only repeats it. */
export const badge = (text, kind) => el("span", { class: "badge " + (kind || "") }, text);

/**
 * A table in a scrollable region (narrow screens scroll it sideways instead of breaking words);
 * the region is focusable so keyboard users can scroll it too.
 */
export function table(label, headers, rows, empty) {
  if (rows.length === 0) return el("p", { class: "empty" }, empty);
  return el(
    "div",
    { class: "table-wrap", role: "region", "aria-label": label, tabindex: "0" },
    el("table", {}, el("caption", { class: "visually-hidden" }, label), el("thead", {}, el("tr", {}, headers.map((h) => el("th", { scope: "col" }, h)))), el("tbody", {}, rows)),
  );
}

/** Definition list from [term, value] pairs. */
export const facts = (pairs) => el("dl", { class: "facts" }, pairs.filter(Boolean).map(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));

/** A slot for the error of one action, placed next to the control that caused it. */
export function errorSlot() {
  const slot = el("p", { class: "error", role: "alert", hidden: true });
  slot.show = (message) => {
    slot.textContent = message || "";
    slot.hidden = !message;
  };
  return slot;
}

/** Runs `action` with `button` disabled (a double click cannot run it twice); errors go to `slot`. */
export async function busy(button, slot, action) {
  if (button.disabled) return;
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  slot?.show("");
  try {
    return await action();
  } catch (e) {
    if (slot) slot.show(e.message || String(e));
    else throw e;
  } finally {
    button.disabled = false;
    button.removeAttribute("aria-busy");
  }
}

/** A button that copies `text`; it says so when done (falls back to selecting the text). */
export function copyButton(text, label, target) {
  const b = el("button", { type: "button", class: "secondary small", "aria-label": label }, "Copy");
  b.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
      b.textContent = "Copied";
    } catch {
      if (target) window.getSelection().selectAllChildren(target);
      b.textContent = "Selected — press Ctrl+C";
    }
    setTimeout(() => (b.textContent = "Copy"), 2500);
  });
  return b;
}

/** A secret shown once, with a copy button and a sentence saying it will not be shown again. */
export function secretBox(title, value, what) {
  const code = el("code", { class: "secret-value" }, value);
  return el(
    "div",
    { class: "card secret", role: "status", tabindex: "-1" },
    el("p", {}, el("strong", {}, title), " — copy it now; it is not shown again."),
    el("p", { class: "secret-line" }, code, " ", copyButton(value, "Copy " + what, code)),
  );
}

/**
 * A modal confirmation (<dialog>: focus moves into it, Escape cancels, focus returns after).
 * Resolves true only when the admin confirms.
 */
export function confirmDialog(title, message, confirmLabel, danger = true) {
  return new Promise((resolve) => {
    const opener = document.activeElement;
    const titleId = "dlg-" + Math.random().toString(36).slice(2);
    const dialog = el(
      "dialog",
      { "aria-labelledby": titleId },
      el("h2", { id: titleId }, title),
      el("p", {}, message),
      el(
        "form",
        { method: "dialog", class: "actions" },
        el("button", { value: "cancel", class: "secondary" }, "Cancel"),
        el("button", { value: "confirm", class: danger ? "danger solid" : "" }, confirmLabel),
      ),
    );
    dialog.addEventListener("close", () => {
      resolve(dialog.returnValue === "confirm");
      dialog.remove();
      if (opener && opener.isConnected) opener.focus();
    });
    document.body.append(dialog);
    dialog.showModal();
    dialog.querySelector("button[value=cancel]").focus();
  });
}

/** Paging controls for {total, limit, offset} pages; `go(offset)` loads another page. */
export function pager(label, page, go) {
  const from = page.total === 0 ? 0 : page.offset + 1;
  const to = Math.min(page.offset + page.items.length, page.total);
  const prev = el("button", { type: "button", class: "secondary", disabled: page.offset === 0, "aria-label": "Previous page of " + label }, "← Previous");
  const next = el("button", { type: "button", class: "secondary", disabled: to >= page.total, "aria-label": "Next page of " + label }, "Next →");
  prev.addEventListener("click", () => go(Math.max(0, page.offset - page.limit)));
  next.addEventListener("click", () => go(page.offset + page.limit));
  return el("nav", { class: "pager", "aria-label": "Pages of " + label }, el("span", { class: "muted" }, `${from}–${to} of ${page.total}`), prev, next);
}

/** A labelled form field; `control` gets an id from the label (stable across re-renders, so focus can return to it). */
export function field(labelText, control, hint) {
  const id = control.id || "f-" + labelText.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
  control.id = id;
  const hintNode = hint ? el("span", { class: "hint", id: id + "-hint" }, hint) : null;
  if (hintNode) control.setAttribute("aria-describedby", hintNode.id);
  return el("div", { class: "field" }, el("label", { for: id }, labelText), control, hintNode);
}

/** <select> from [value, text] pairs. */
export function select(options, value, attrs) {
  return el("select", attrs || {}, options.map(([v, text]) => el("option", { value: v, selected: v === value }, text)));
}

/** A datetime-local value (the browser's local time) as ISO 8601, or "". */
export const localToIso = (local) => (local ? new Date(local).toISOString() : "");
/** ISO 8601 as a datetime-local value in the browser's time zone (minutes), or "". */
export function isoToLocal(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A datetime-local control for a query's ISO time; filterForm turns its value back into ISO. */
export function timeInput(iso) {
  const input = el("input", { type: "datetime-local", value: isoToLocal(iso) });
  input.toQuery = () => localToIso(input.value);
  return input;
}

/**
 * A link, shown only while it has focus, that moves focus to what `target()` returns: keyboard
 * users pass a row of filters (a date-time field alone is several tab stops) in one keypress.
 */
export function skipTo(text, target) {
  const link = el("a", { href: "#", class: "skip-inline" }, text);
  link.addEventListener("click", (ev) => {
    ev.preventDefault(); // the hash is the router's
    const node = target();
    if (!node) return;
    if (!node.hasAttribute("tabindex")) node.setAttribute("tabindex", "-1");
    node.focus();
  });
  return link;
}

/** The results after a filter form: the first table region or "nothing matches" line that follows it. */
function nextResults(form) {
  for (let n = form.nextElementSibling; n; n = n.nextElementSibling) if (n.matches(".table-wrap, .empty")) return n;
  return null;
}

/**
 * A search/filter form whose fields are the page's query: `controls` maps each query key to
 * [label, control]; submitting puts their values in the address (view.setQuery). A control with
 * a `toQuery()` (timeInput) gives its own query value.
 */
export function filterForm(view, label, submitText, controls) {
  const form = el(
    "form",
    { class: "filters", role: "search", "aria-label": label },
    skipTo("Skip to the results", () => nextResults(form)),
    Object.values(controls).map(([text, control]) => field(text, control)),
    el("div", { class: "actions" }, el("button", { type: "submit", id: "apply-filters" }, submitText)),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    view.setQuery(Object.fromEntries(Object.entries(controls).map(([key, [, control]]) => [key, control.toQuery ? control.toQuery() : control.value.trim()])));
  });
  return form;
}
