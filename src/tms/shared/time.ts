import { isoMicros } from "../../webhooks/catalog";

/**
 * Timestamps as the webhook payloads show them (ISO 8601 with microseconds and a Z suffix). The
 * format is defined once, by the event catalog that validates the payloads; entities store the
 * same string so `created`/`updated` go out unchanged.
 */
export function isoMicro(date: Date = new Date()): string {
  return isoMicros(date);
}

/** Whole seconds between two `isoMicro` timestamps (rounded, never negative). */
export function secondsBetween(fromIso: string, toIso: string): number {
  return Math.max(0, Math.round((Date.parse(toIso) - Date.parse(fromIso)) / 1000));
}
