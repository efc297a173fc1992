import { t } from "elysia";
import { Envelope, Limit, Offset, Opt } from "../shared/envelope";

/** Bounds Qase leaves open (docs/tms.md "Shared parameters"). */
export const SHARED_PARAMETER_LIMITS = { parametersInGroup: 20, valuesPerParameter: 100, valueLength: 1000, projectCodes: 1000 } as const;

/** Literals rather than t.UnionEnum: Elysia gives an optional UnionEnum query parameter its first value as a default. */
export const SharedParameterType = t.Union([t.Literal("single"), t.Literal("group")], { description: "single: one parameter; group: two or more whose values go together by position" });

/** Qase `ParameterSingle`: a parameter's title and its values. */
export const ParameterValues = t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  values: t.Array(t.String({ minLength: 1, maxLength: SHARED_PARAMETER_LIMITS.valueLength }), { minItems: 1, maxItems: SHARED_PARAMETER_LIMITS.valuesPerParameter }),
});
/** Qase `SharedParameterParameter`: one entry for `single`, two or more for `group` (checked against the type in the service). */
const Parameters = t.Array(ParameterValues, { minItems: 1, maxItems: SHARED_PARAMETER_LIMITS.parametersInGroup });
const ProjectCodes = t.Array(t.String({ minLength: 1, maxLength: 32 }), {
  maxItems: SHARED_PARAMETER_LIMITS.projectCodes, description: "Codes of projects of the token's workspace (case-insensitive; answered upper-case)",
});

/** Qase `SharedParameterCreate`. */
export const SharedParameterCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  type: SharedParameterType,
  is_enabled_for_all_projects: t.Boolean(),
  parameters: Parameters,
  project_codes: Opt(ProjectCodes),
}, { examples: [{ title: "Browsers", type: "single", is_enabled_for_all_projects: true, parameters: [{ title: "browser", values: ["chromium", "firefox", "webkit"] }] }] });
/** Qase `SharedParameterUpdate`: the type stays; `parameters`, when given, replaces them all. */
export const SharedParameterUpdate = t.Object({
  title: Opt(t.String({ minLength: 1, maxLength: 255 })),
  is_enabled_for_all_projects: Opt(t.Boolean()),
  parameters: Opt(Parameters),
  project_codes: Opt(ProjectCodes),
}, { examples: [{ is_enabled_for_all_projects: false, project_codes: ["DEMO"] }] });
export type SharedParameterCreateBody = typeof SharedParameterCreate.static;
export type SharedParameterUpdateBody = typeof SharedParameterUpdate.static;

export const UUID_PATTERN = "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$";
export const UuidParam = t.Object({ id: t.String({ pattern: UUID_PATTERN, description: "The shared parameter's UUID" }) });

/**
 * `GET /shared_parameter` filters, spelled as Qase's clients send them. `filters[project_codes][]`
 * may repeat, and each value may hold several codes separated by commas (qase-api-client joins the
 * array into one value).
 */
export const SharedParameterListQuery = t.Object({
  limit: Limit,
  offset: Offset,
  "filters[search]": t.Optional(t.String({ maxLength: 255, description: "Part of the title (case-insensitive)" })),
  "filters[type]": t.Optional(SharedParameterType),
  "filters[project_codes][]": t.Optional(t.Union([t.String({ maxLength: 2000 }), t.Array(t.String({ maxLength: 2000 }), { maxItems: 100 })], {
    description: "Project codes: shared parameters usable in any of them (enabled for all projects, or listing one)",
  })),
});

/** Qase `SharedParameter`. */
export const SharedParameterView = t.Object({
  id: t.String({ format: "uuid" }),
  title: t.String(),
  type: SharedParameterType,
  project_codes: t.Array(t.String()),
  is_enabled_for_all_projects: t.Boolean(),
  parameters: t.Array(t.Object({ title: t.String(), values: t.Array(t.String()) })),
});
export const UuidResult = Envelope(t.Object({ id: t.String({ format: "uuid" }) }));
