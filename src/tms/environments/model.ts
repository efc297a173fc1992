import { t } from "elysia";
import { Envelope, Limit, Offset, Opt } from "../shared/envelope";

export const SLUG_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$";
const Slug = t.String({ pattern: SLUG_PATTERN, description: "Unique in the project, e.g. \"staging\"" });

/** Qase `EnvironmentCreate`. */
export const EnvironmentCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  slug: Slug,
  description: Opt(t.String({ maxLength: 10000 })),
  host: Opt(t.String({ maxLength: 2000 })),
}, { examples: [{ title: "Staging", slug: "staging", description: "Pre-release checks", host: "staging.example.com" }] });
export const EnvironmentUpdate = t.Partial(EnvironmentCreate, { examples: [{ host: "staging-2.example.com" }] });
export type EnvironmentCreateBody = typeof EnvironmentCreate.static;
export type EnvironmentUpdateBody = typeof EnvironmentUpdate.static;

export const EnvironmentListQuery = t.Object({
  limit: Limit,
  offset: Offset,
  search: t.Optional(t.String({ maxLength: 255, description: "Part of the title" })),
  slug: t.Optional(t.String({ maxLength: 100, description: "Exact slug" })),
});

/** Qase `Environment`. */
export const EnvironmentView = t.Object({
  id: t.Integer(), title: t.String(), slug: t.String(), description: t.Union([t.String(), t.Null()]), host: t.Union([t.String(), t.Null()]),
});
export const EnvironmentResult = Envelope(EnvironmentView);
export const EnvironmentList = Envelope(t.Object({ total: t.Integer(), filtered: t.Integer(), count: t.Integer(), entities: t.Array(EnvironmentView) }));
