/**
 * Timestamps as the webhook payloads show them: ISO 8601 with microseconds and a Z suffix,
 * e.g. `2026-11-22T10:00:00.123000Z`. JavaScript clocks have millisecond resolution, so the
 * last three digits are always 000; the format is what subscribers parse.
 */
export function isoMicro(date: Date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** Whole seconds between two `isoMicro` timestamps (rounded, never negative). */
export function secondsBetween(fromIso: string, toIso: string): number {
  return Math.max(0, Math.round((Date.parse(toIso) - Date.parse(fromIso)) / 1000));
}
