import { isoMicros } from "../../webhooks/catalog";

/**
 * QQL's date functions, as Qase documents them: `now("-7d")` and `startOf…`/`endOf…` of a day,
 * week or month, each taking nothing (now), an offset from now (`"-1d"`, `"+2w"`, `"-1m"`) or a
 * day (`"2026-01-05"`). Offsets count days, weeks and months only (Qase takes no hours or years).
 * Times are UTC and weeks start on Monday (ISO 8601). Each evaluates to the stored timestamp
 * format (ISO 8601 with microseconds, Z), so comparing it with a stored time is a text comparison;
 * an `endOf…` is the last microsecond of its period, so `<= endOfDay()` includes the whole day.
 */
export const DATE_FUNCTIONS = ["now", "startofday", "endofday", "startofweek", "endofweek", "startofmonth", "endofmonth"] as const;
export const DATE_FUNCTION_NAMES = "now(), startOfDay(), endOfDay(), startOfWeek(), endOfWeek(), startOfMonth(), endOfMonth()";

const DAY_MS = 86_400_000;

/** Why a date function's argument is refused; the compiler adds where. */
export class DateArgumentError extends Error {}

function offsetFrom(now: Date, arg: string): Date {
  const m = /^([+-])\s*(\d{1,4})\s*([a-z]+)$/i.exec(arg.trim());
  if (!m) throw new DateArgumentError(`takes an offset such as "-7d", "+2w" or "-1m", or a day as "YYYY-MM-DD"; not ${JSON.stringify(arg)}`);
  const n = Number(m[2]) * (m[1] === "-" ? -1 : 1);
  const unit = m[3]!.toLowerCase();
  if (unit === "d") return new Date(now.getTime() + n * DAY_MS);
  if (unit === "w") return new Date(now.getTime() + n * 7 * DAY_MS);
  if (unit === "m") {
    // The same day of the month n months away, clamped to that month's last day (Jan 31 - 1m… = Feb 28).
    const d = new Date(now);
    const day = d.getUTCDate();
    d.setUTCDate(1);
    d.setUTCMonth(d.getUTCMonth() + n);
    d.setUTCDate(Math.min(day, new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate()));
    return d;
  }
  throw new DateArgumentError(`counts days (d), weeks (w) or months (m); Qase takes no ${JSON.stringify(m[3])} offsets`);
}

/** The instant an argument names: now, now moved by an offset, or the start of a given day (UTC). */
function anchor(now: Date, arg: string | number | null, allowDay: boolean): Date {
  if (arg === null) return now;
  if (typeof arg === "number") throw new DateArgumentError(`takes a quoted offset such as "-7d"${allowDay ? ' or a day as "YYYY-MM-DD"' : ""}, not a number`);
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(arg.trim());
  if (day) {
    if (!allowDay) throw new DateArgumentError(`takes an offset such as "-7d", not a day (startOfDay("${arg}") names a day)`);
    const d = new Date(Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3])));
    if (d.getUTCMonth() !== Number(day[2]) - 1 || d.getUTCDate() !== Number(day[3])) throw new DateArgumentError(`${JSON.stringify(arg)} is not a day of the calendar`);
    return d;
  }
  return offsetFrom(now, arg);
}

/** The start of the day, week (Monday) or month holding `d`, and the start of the next one. */
function period(d: Date, unit: "day" | "week" | "month"): [Date, Date] {
  const y = d.getUTCFullYear(), mo = d.getUTCMonth(), day = d.getUTCDate();
  if (unit === "month") return [new Date(Date.UTC(y, mo, 1)), new Date(Date.UTC(y, mo + 1, 1))];
  const back = unit === "week" ? (d.getUTCDay() + 6) % 7 : 0;
  const start = new Date(Date.UTC(y, mo, day - back));
  return [start, new Date(start.getTime() + (unit === "week" ? 7 : 1) * DAY_MS)];
}

/** The stored-format timestamp a date function names at `now`; null when `name` is not one. */
export function evaluateDateFunction(name: string, arg: string | number | null, now: Date): string | null {
  if (name === "now") return isoMicros(anchor(now, arg, false));
  const m = /^(start|end)of(day|week|month)$/.exec(name);
  if (!m) return null;
  const [start, next] = period(anchor(now, arg, true), m[2] as "day" | "week" | "month");
  return m[1] === "start" ? isoMicros(start) : isoMicros(next.getTime() - 1).replace(/000Z$/, "999Z");
}

/**
 * A date written as text in a query ("2026-01-05", "2026-01-05T10:00:00Z"), in the stored format;
 * null when it is not a date. A bare day is its start (UTC).
 */
export function normalizeDateLiteral(text: string): string | null {
  const s = text.trim();
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(s)) return null;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(s);
  const ms = Date.parse(day ? `${s}T00:00:00Z` : /Z|[+-]\d{2}:?\d{2}$/.test(s) ? s.replace(" ", "T") : `${s.replace(" ", "T")}Z`);
  if (!Number.isFinite(ms)) return null;
  // Date.parse rolls 2026-02-30 over to March: a literal must name a real calendar day.
  const [y, mo, d] = s.slice(0, 10).split("-").map(Number) as [number, number, number];
  if (new Date(Date.UTC(y, mo - 1, d)).getUTCDate() !== d) return null;
  return isoMicros(ms);
}
