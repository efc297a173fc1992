import { t } from "elysia";
import { AuthorId, Opt, Timestamp } from "../shared/envelope";

/** Qase `SharedStepCreate`; nested `steps` are accepted and the first one's text is used when `action` is missing. */
const NestedStep = t.Object({ action: t.String({ minLength: 1, maxLength: 10000 }), expected_result: Opt(t.String({ maxLength: 10000 })), data: Opt(t.String({ maxLength: 10000 })) });
export const SharedStepCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  action: Opt(t.String({ minLength: 1, maxLength: 10000 })),
  expected_result: Opt(t.String({ maxLength: 10000 })),
  data: Opt(t.String({ maxLength: 10000 })),
  steps: Opt(t.Array(NestedStep, { maxItems: 100 })),
}, { examples: [{"title": "Sign in", "action": "Sign in as a customer", "expected_result": "The dashboard opens"}] });
export const SharedStepUpdate = t.Object({
  title: t.Optional(t.String({ minLength: 1, maxLength: 255 })),
  action: Opt(t.String({ minLength: 1, maxLength: 10000 })),
  expected_result: Opt(t.String({ maxLength: 10000 })),
  data: Opt(t.String({ maxLength: 10000 })),
  steps: Opt(t.Array(NestedStep, { maxItems: 100 })),
}, { examples: [{"expected_result": "The dashboard opens with the cart"}] });
export type SharedStepCreateBody = typeof SharedStepCreate.static;
export type SharedStepUpdateBody = typeof SharedStepUpdate.static;

export const SharedStepView = t.Object({
  hash: t.String(),
  title: t.String(),
  action: t.String(),
  expected_result: t.String(),
  data: t.String(),
  steps: t.Array(t.Object({ action: t.String(), expected_result: t.String(), data: t.String() })),
  author_id: AuthorId,
  created: Timestamp,
  updated: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
});
