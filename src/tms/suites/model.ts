import { t } from "elysia";
import { Opt } from "../shared/envelope";

/** Qase `SuiteCreate`. */
export const SuiteCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  description: Opt(t.String({ maxLength: 100000 })),
  preconditions: Opt(t.String({ maxLength: 100000 })),
  parent_id: Opt(t.Integer({ minimum: 1 })),
});
export const SuiteUpdate = t.Object({
  title: t.Optional(t.String({ minLength: 1, maxLength: 255 })),
  description: Opt(t.String({ maxLength: 100000 })),
  preconditions: Opt(t.String({ maxLength: 100000 })),
  parent_id: Opt(t.Integer({ minimum: 1 })),
});
/** Qase `SuiteDelete`: cases of the deleted subtree move to `destination_id` when given, else are deleted. */
export const SuiteDelete = t.Object({ destination_id: Opt(t.Integer({ minimum: 1 })) });
/** Gatehouse extension: copy the suite, its sub-suites and their cases under `parent_id` (default: the same parent). */
export const SuiteClone = t.Object({ parent_id: Opt(t.Integer({ minimum: 1 })), title: Opt(t.String({ minLength: 1, maxLength: 255 })) });
export type SuiteCreateBody = typeof SuiteCreate.static;
export type SuiteUpdateBody = typeof SuiteUpdate.static;
