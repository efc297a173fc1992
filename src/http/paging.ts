import { t } from "elysia";

/**
 * `?limit=&offset=` of the admin API's lists. Whole numbers within bounds only: a value that
 * passes here always reaches SQLite as an exact integer (`1.5`, `1e20` or 2^63 would not, and
 * SQLite refuses them with a 500-worthy error).
 */
export const PageLimit = t.Optional(t.Numeric({ minimum: 1, maximum: 500, multipleOf: 1, default: 50 }));
export const PageOffset = t.Optional(t.Numeric({ minimum: 0, maximum: 1_000_000_000, multipleOf: 1, default: 0 }));

/** A numeric path id (`/webhooks/{id}`): a positive whole number both engines hold exactly (beyond it PostgreSQL refuses the parameter). */
export const NumericIdBounds = { minimum: 1, maximum: Number.MAX_SAFE_INTEGER };
export const NumericId = t.Integer(NumericIdBounds);
