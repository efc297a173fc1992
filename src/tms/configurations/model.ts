import { t } from "elysia";
import { Envelope } from "../shared/envelope";

/** Qase `ConfigurationGroupCreate`. */
export const ConfigurationGroupCreate = t.Object({ title: t.String({ minLength: 1, maxLength: 255 }) }, { examples: [{ title: "Browser" }] });
/** Qase `ConfigurationCreate`: a value in a group. */
export const ConfigurationCreate = t.Object({ title: t.String({ minLength: 1, maxLength: 255 }), group_id: t.Integer({ minimum: 1 }) }, { examples: [{ title: "Firefox", group_id: 1 }] });
export type ConfigurationCreateBody = typeof ConfigurationCreate.static;

/** Qase `ConfigurationGroup` with its `ConfigurationItem`s. */
const ConfigurationGroupView = t.Object({
  id: t.Integer(), title: t.String(), configurations: t.Array(t.Object({ id: t.Integer(), title: t.String() })),
});
export const ConfigurationList = Envelope(t.Object({ total: t.Integer(), filtered: t.Integer(), count: t.Integer(), entities: t.Array(ConfigurationGroupView) }));
