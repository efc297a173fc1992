import { t } from "elysia";
import { AuthorId, EntityNumber, Nullable, Opt, Timestamp } from "../shared/envelope";

/** Qase `SuiteCreate`. */
export const SuiteCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  description: Opt(t.String({ maxLength: 100000 })),
  preconditions: Opt(t.String({ maxLength: 100000 })),
  parent_id: Opt(EntityNumber("parent suite")),
}, { examples: [{"title": "Checkout", "description": "Paying for a cart", "parent_id": null}] });
export const SuiteUpdate = t.Object({
  title: t.Optional(t.String({ minLength: 1, maxLength: 255 })),
  description: Opt(t.String({ maxLength: 100000 })),
  preconditions: Opt(t.String({ maxLength: 100000 })),
  parent_id: Opt(EntityNumber("parent suite")),
}, { examples: [{"title": "Checkout and payment"}] });
/** Qase `SuiteDelete`: cases of the deleted subtree move to `destination_id` when given, else are deleted. */
export const SuiteDelete = t.Object({ destination_id: Opt(EntityNumber("suite the cases move to")) }, { examples: [{"destination_id": 2}] });
/** Gatehouse extension: copy the suite, its sub-suites and their cases under `parent_id` (default: the same parent). */
export const SuiteClone = t.Object({ parent_id: Opt(EntityNumber("parent suite")), title: Opt(t.String({ minLength: 1, maxLength: 255 })) }, { examples: [{"title": "Checkout (copy)"}] });
export type SuiteCreateBody = typeof SuiteCreate.static;
export type SuiteUpdateBody = typeof SuiteUpdate.static;

export const SuiteView = t.Object({
  id: EntityNumber("suite"),
  title: t.String(),
  description: Nullable(t.String()),
  preconditions: Nullable(t.String()),
  position: t.Integer(),
  cases_count: t.Integer(),
  parent_id: Nullable(EntityNumber("parent suite")),
  author_id: AuthorId,
  created: Timestamp,
  updated: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
});
