import { t } from "elysia";
import { Opt } from "../shared/envelope";

/** POST /project — Qase `ProjectCreate`. `group` and `settings` are accepted and ignored. */
export const ProjectCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  code: t.String({ pattern: "^[A-Za-z][A-Za-z0-9]{1,9}$", description: "2–10 letters/digits, starting with a letter; stored upper-case" }),
  description: Opt(t.String({ maxLength: 10000 })),
  access: Opt(t.Union([t.Literal("all"), t.Literal("group"), t.Literal("none")])),
  group: Opt(t.String()),
  settings: Opt(t.Record(t.String(), t.Any())),
});
export type ProjectCreateBody = typeof ProjectCreate.static;
