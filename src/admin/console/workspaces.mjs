// Workspaces of the organization: create, rename, archive and restore.
import { api } from "./api.mjs";
import { badge, busy, confirmDialog, el, errorSlot, field, table, time } from "./dom.mjs";

export async function render(view) {
  const { items } = await api("GET", "/workspaces");
  if (!view.current) return;
  const box = el("div");
  view.page.append(
    el("h1", { tabindex: "-1" }, "Workspaces"),
    el("p", { class: "hint" }, "Users belong to the organization and are members of workspaces; groups, projects and workspace SCIM tokens belong to one workspace. Archiving keeps everything; the workspace's SCIM tokens then get 403."),
    box,
  );
  draw(box, items);
}

function draw(box, items) {
  const name = el("input", { maxlength: "200", required: true, autocomplete: "off" });
  const submit = el("button", { type: "submit" }, "Create workspace");
  const error = errorSlot();
  const form = el("form", { class: "inline-form", "aria-label": "Create a workspace" }, field("Workspace name", name), el("div", { class: "actions" }, submit), error);
  const redraw = async () => draw(box, (await api("GET", "/workspaces")).items);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    await busy(submit, error, async () => {
      await api("POST", "/workspaces", { name: name.value.trim() });
      await redraw();
      box.querySelector("#f-workspace-name")?.focus();
    });
  });
  const rows = items.map((w) => {
    const rowError = errorSlot();
    const rename = el("button", { type: "button", class: "secondary small", "aria-label": `Rename workspace ${w.name}` }, "Rename");
    // The default workspace (id 1) cannot be archived: the button says so instead of failing after a confirmation.
    const isDefault = w.id === 1;
    const archive = el("button", { type: "button", class: w.archived ? "secondary small" : "danger small", "aria-label": `${w.archived ? "Restore" : "Archive"} workspace ${w.name}`, disabled: isDefault && !w.archived, ...(isDefault ? { "aria-describedby": "default-ws-reason" } : {}) }, w.archived ? "Restore" : "Archive");
    const nameCell = el("td", {}, el("a", { href: "#/users?workspaceId=" + w.id }, w.name));
    rename.addEventListener("click", () => {
      const input = el("input", { value: w.name, maxlength: "200", required: true, "aria-label": `New name for ${w.name}` });
      const save = el("button", { type: "submit", class: "small" }, "Save");
      const cancel = el("button", { type: "button", class: "secondary small" }, "Cancel");
      const inline = el("form", { class: "actions", "aria-label": `Rename ${w.name}` }, input, save, cancel);
      cancel.addEventListener("click", () => redraw());
      inline.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        await busy(save, rowError, async () => {
          await api("PATCH", "/workspaces/" + w.id, { name: input.value.trim() });
          await redraw();
        });
      });
      nameCell.replaceChildren(inline);
      input.focus();
    });
    archive.addEventListener("click", async () => {
      if (!w.archived && !(await confirmDialog(`Archive “${w.name}”?`, "Its users, groups and projects stay. Its SCIM tokens get 403 Forbidden until you restore it.", "Archive workspace"))) return;
      await busy(archive, rowError, async () => {
        await api("PATCH", "/workspaces/" + w.id, { archived: !w.archived });
        await redraw();
      });
    });
    return el(
      "tr",
      {},
      nameCell,
      el("td", {}, String(w.members)),
      el("td", {}, w.archived ? [badge("archived", "bad"), " ", time(w.archivedAt)] : badge("active", "ok")),
      el("td", {}, time(w.createdAt)),
      el("td", {}, el("div", { class: "actions" }, rename, archive), isDefault ? el("p", { class: "hint", id: "default-ws-reason" }, "The default workspace cannot be archived.") : null, rowError),
    );
  });
  box.replaceChildren(form, el("h2", {}, "All workspaces"), table("Workspaces", ["Name", "Members", "State", "Created", "Actions"], rows, "No workspaces."));
}
