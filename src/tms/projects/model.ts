import { t } from "elysia";
import { AuthorId, Nullable, Opt, Timestamp } from "../shared/envelope";

/** POST /project — Qase `ProjectCreate`. `group` and `settings` are accepted and ignored. */
export const ProjectCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  code: t.String({ pattern: "^[A-Za-z][A-Za-z0-9]{1,9}$", description: "2–10 letters/digits, starting with a letter; stored upper-case" }),
  description: Opt(t.String({ maxLength: 10000 })),
  access: Opt(t.Union([t.Literal("all"), t.Literal("group"), t.Literal("none")])),
  group: Opt(t.String()),
  settings: Opt(t.Record(t.String(), t.Any())),
}, { examples: [{"title": "Demo project", "code": "DEMO", "description": "Web shop regression suite"}] });
export type ProjectCreateBody = typeof ProjectCreate.static;

/** Qase's project shape with its entity counts (`projectView`). */
export const ProjectView = t.Object({
  title: t.String(),
  code: t.String(),
  description: Nullable(t.String()),
  access: t.String({ description: "all (every workspace member)" }),
  author_id: AuthorId,
  created: Timestamp,
  updated: Timestamp,
  counts: t.Object({
    cases: t.Integer(),
    suites: t.Integer(),
    milestones: t.Integer(),
    runs: t.Object({ total: t.Integer(), active: t.Integer() }),
    defects: t.Object({ total: t.Integer(), open: t.Integer() }),
  }),
});
