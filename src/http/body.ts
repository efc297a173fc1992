/**
 * Reading a JSON request body within a byte limit, counted while the bytes arrive — a chunked
 * body has no Content-Length to check up front, and Bun's own cap (32 MiB) is far above what
 * any API here accepts. SCIM, the admin API and /api/v1–v2 all read their bodies through this;
 * each passes its own error factories so the 413/400 comes out in its protocol's format.
 */

import { ApiError, apiBodyErrors } from "./errors";

export type BodyErrors = {
  /** Over the limit (declared or counted): a 413 in the caller's protocol. */
  tooLarge(limit: number): Error;
  /** Not UTF-8 or not JSON: a 400 in the caller's protocol. */
  malformed(detail: string): Error;
};

/**
 * A JSON API body (admin, /api/v1, /api/v2): `application/json` (any parameters) or no
 * Content-Type; another media type on a non-empty body → 415. `null` for an empty body, so Elysia's own parsers
 * never run after this one.
 */
export async function readJsonApiBody(request: Request, limit: number): Promise<unknown> {
  // Qase's generated clients label even empty POST bodies form-urlencoded: only a body counts.
  if (request.headers.get("content-length") === "0" || !request.body) return null;
  const type = request.headers.get("content-type")?.split(";")[0]!.trim().toLowerCase();
  if (type && type !== "application/json")
    throw new ApiError(415, "unsupported_media_type", `Unsupported media type ${quoteValue(type)}: send application/json`);
  return (await readJsonBodyWithin(request, limit, apiBodyErrors)) ?? null;
}

/** The longest piece of a client's value an error message repeats (bounded error bodies). */
export const QUOTE_MAX_CHARS = 40;

/** A client's value as an error message may quote it: JSON-quoted, cut to a short prefix. */
export function quoteValue(value: unknown): string {
  const s = typeof value === "string" ? value : String(JSON.stringify(value));
  return s.length <= QUOTE_MAX_CHARS ? JSON.stringify(s) : `${JSON.stringify(s.slice(0, QUOTE_MAX_CHARS))}… (${s.length} characters)`;
}

/** Cuts a whole message (which may embed client values) to a length safe to send back. */
export function clipMessage(message: string, max = 500): string {
  return message.length <= max ? message : `${message.slice(0, max)}…`;
}

/**
 * Reads and parses the body, stopping with `tooLarge` as soon as more than `limit` bytes arrived.
 * Returns `undefined` for an empty (or all-whitespace) body.
 */
export async function readJsonBodyWithin(request: Request, limit: number, errors: BodyErrors): Promise<unknown> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw errors.tooLarge(limit);
  if (!request.body) return undefined;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      reader.cancel().catch(() => {});
      throw errors.tooLarge(limit);
    }
    chunks.push(value);
  }
  if (size === 0) return undefined;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw errors.malformed("The request body is not valid UTF-8");
  }
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    // The engine's message may quote the offending token; keep only its start.
    throw errors.malformed(`The request body is not valid JSON: ${clipMessage((e as Error).message, 120)}`);
  }
}
