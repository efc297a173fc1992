/**
 * Prints the README's event table from the webhook catalog (src/webhooks/catalog.ts), so the
 * table cannot drift from what `publish` validates: `bun scripts/event-table.ts`.
 * test/config-docs.test.ts fails when README.md does not contain this exact table.
 */
import type { TSchema } from "@sinclair/typebox";
import { EVENTS, EVENT_NAMES } from "../src/webhooks/catalog";

function typeOf(s: TSchema): string {
  if (s.anyOf) {
    const parts = (s.anyOf as TSchema[]).map(typeOf);
    if (parts.every((p) => p.startsWith('"'))) return parts.join(" \\| ");
    return parts.filter((p) => p !== "null").join(" \\| ") + (parts.includes("null") ? " (nullable)" : "");
  }
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.type === "array") return `${typeOf(s.items as TSchema)}[]`;
  if (s.type === "integer") return "int";
  if (s.type === "object") return s.properties ? `{${Object.keys(s.properties).join(", ")}}` : "object";
  return String(s.type ?? "any");
}

export function renderEventTable(): string {
  const rows = ["| Event | Sent when | Payload fields |", "|---|---|---|"];
  for (const name of EVENT_NAMES) {
    const { schema, trigger } = EVENTS[name] as { schema: TSchema; trigger: string };
    const props = schema.properties as Record<string, TSchema>;
    const required = new Set<string>((schema.required as string[] | undefined) ?? []);
    const fields = Object.entries(props)
      .map(([k, v]) => `\`${k}\` ${typeOf(v)}${required.has(k) ? "" : " (optional)"}`)
      .join(", ");
    rows.push(`| \`${name}\` | ${trigger} | ${fields} |`);
  }
  return rows.join("\n");
}

if (import.meta.main) console.log(renderEventTable());
