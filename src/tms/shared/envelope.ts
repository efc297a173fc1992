import { t, type TSchema } from "elysia";
import { badRequest } from "../../http/errors";
import { NumericId, NumericIdBounds } from "../../http/paging";

/** Qase v1 success envelope. */
export const ok = <T>(result: T) => ({ status: true as const, result });

/** Qase v1 list result: `total` in the project, `filtered` after filters, `count` on this page. */
export const page = <T>(entities: T[], total: number, filtered = total) => ok({ total, filtered, count: entities.length, entities });

/**
 * `?limit=&offset=` as Qase takes them: limit 1..100 (default 10), offset ≥ 0. The bounds are
 * checked in `paging` rather than in the schema: Elysia reports a bound violated inside
 * `t.Numeric` without the parameter's name, and the 400 must name it.
 */
export const Limit = t.Optional(t.Numeric({ default: 10, description: "1–100" }));
export const Offset = t.Optional(t.Numeric({ default: 0, description: "≥ 0" }));
export const Paging = t.Object({ limit: Limit, offset: Offset });
export function paging(q: { limit?: number; offset?: number }): { limit: number; offset: number } {
  const limit = q.limit ?? 10;
  const offset = q.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw badRequest("limit must be an integer from 1 to 100", "limit");
  // Bounded so that only an exact integer ever reaches SQLite (1e20 or 2^63 would not).
  if (!Number.isSafeInteger(offset) || offset < 0) throw badRequest(`offset must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}`, "offset");
  return { limit, offset };
}

/** Response schemas: `{status: true, result}`. */
export const Envelope = <T extends TSchema>(result: T) => t.Object({ status: t.Literal(true), result });
/** A page of `entity` in the envelope (see `page`). */
export const PageOf = <T extends TSchema>(entity: T) =>
  Envelope(t.Object({ total: t.Integer({ minimum: 0 }), filtered: t.Integer({ minimum: 0 }), count: t.Integer({ minimum: 0 }), entities: t.Array(entity) }));
/** `{status: true}` alone (bulk writes). */
export const StatusOnly = t.Object({ status: t.Literal(true) });
/** Timestamps as stored and sent: ISO 8601 UTC with microseconds, e.g. 2026-11-25T13:32:23.123456Z. */
export const Timestamp = t.String({ format: "date-time" });
export const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);
/** The user a token is attributed to (null when the token has none). */
export const AuthorId = Nullable(t.Integer());
/** Qase's `[{title}]` tag list. */
export const Tags = t.Array(t.Object({ title: t.String() }));
export const IdResult = Envelope(t.Object({ id: t.Integer() }));
/** `{id}` of an entity numbered per project: its number. */
export const NumberResult = (what: string) => Envelope(t.Object({ id: EntityNumber(what) }));
export const HashResult = Envelope(t.Object({ hash: t.String() }));

/**
 * A field a Qase client may omit or send as null (generated clients serialise unset optionals
 * as null in some languages); both mean "not given".
 */
export const Opt = <T extends TSchema>(schema: T) => t.Optional(t.Union([schema, t.Null()]));

/**
 * Attachment ids: integers, or the decimal strings Qase clients send as attachment "hashes".
 * An attachment's hash is its decimal id (src/tms/attachments); ids are kept as given and echoed in payloads.
 */
export const AttachmentIds = Opt(t.Array(t.Union([t.Integer({ minimum: 1 }), t.String({ pattern: "^[1-9][0-9]{0,15}$" })]), { maxItems: 1000 }));
export const attachmentIds = (v: (number | string)[] | null | undefined): number[] => (v ?? []).map((x) => Number(x));

/**
 * An entity's number within its project — what the API calls its `id` (cases, suites,
 * milestones, plans, runs and defects are numbered per project, src/tms/shared/numbers.ts).
 */
export const EntityNumber = (what: string) => t.Integer({ ...NumericIdBounds, description: `Number of the ${what} within the project` });
/** A list of `EntityNumber`s. */
export const EntityNumbers = (what: string, maxItems: number) =>
  t.Array(NumericId, { maxItems, description: `Numbers of ${what} of the same project` });

/** Path params shared by project-scoped routes. */
export const CodeParam = t.Object({ code: t.String({ minLength: 1, maxLength: 32 }) });
/** `/{code}/{id}` of an entity that is not numbered per project (its id is global). */
export const CodeIdParams = t.Object({ code: t.String({ minLength: 1, maxLength: 32 }), id: NumericId });
/** `/{code}/{id}` where `id` is the entity's number within the project. */
export const CodeNumberParams = (what: string) =>
  t.Object({ code: t.String({ minLength: 1, maxLength: 32 }), id: t.Integer({ ...NumericIdBounds, description: `Number of the ${what} within the project` }) });
export const CodeHashParams = t.Object({ code: t.String({ minLength: 1, maxLength: 32 }), hash: t.String({ minLength: 1, maxLength: 128 }) });
