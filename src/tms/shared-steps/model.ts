import { t } from "elysia";
import { Opt } from "../shared/envelope";

/** Qase `SharedStepCreate`; nested `steps` are accepted and the first one's text is used when `action` is missing. */
const NestedStep = t.Object({ action: t.String({ minLength: 1, maxLength: 10000 }), expected_result: Opt(t.String({ maxLength: 10000 })), data: Opt(t.String({ maxLength: 10000 })) });
export const SharedStepCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  action: Opt(t.String({ minLength: 1, maxLength: 10000 })),
  expected_result: Opt(t.String({ maxLength: 10000 })),
  data: Opt(t.String({ maxLength: 10000 })),
  steps: Opt(t.Array(NestedStep, { maxItems: 100 })),
});
export const SharedStepUpdate = t.Object({
  title: t.Optional(t.String({ minLength: 1, maxLength: 255 })),
  action: Opt(t.String({ minLength: 1, maxLength: 10000 })),
  expected_result: Opt(t.String({ maxLength: 10000 })),
  data: Opt(t.String({ maxLength: 10000 })),
  steps: Opt(t.Array(NestedStep, { maxItems: 100 })),
});
export type SharedStepCreateBody = typeof SharedStepCreate.static;
export type SharedStepUpdateBody = typeof SharedStepUpdate.static;
