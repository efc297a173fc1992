import { own } from "../../lib/own";
/**
 * The media type of an upload, read from its first bytes: what a client declares is never
 * trusted (a file labelled image/png may be HTML). Anything not recognised is
 * application/octet-stream, or text/plain when it is valid UTF-8 without NUL bytes.
 */
const SIGNATURES: [type: string, bytes: number[], offset?: number][] = [
  ["image/png", [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ["image/jpeg", [0xff, 0xd8, 0xff]],
  ["image/gif", [0x47, 0x49, 0x46, 0x38]],
  ["application/pdf", [0x25, 0x50, 0x44, 0x46, 0x2d]],
  ["application/zip", [0x50, 0x4b, 0x03, 0x04]],
  ["application/gzip", [0x1f, 0x8b]],
  ["video/webm", [0x1a, 0x45, 0xdf, 0xa3]],
];

/** Every media type sniffMediaType answers (without parameters): what a download may be sent as. */
export const SNIFFED_MEDIA_TYPES = [...SIGNATURES.map(([type]) => type), "image/webp", "video/mp4", "application/octet-stream", "text/plain"];

const startsWith = (b: Uint8Array, sig: number[], offset = 0) => sig.every((x, i) => b[offset + i] === x);
const ascii = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to));

export function sniffMediaType(bytes: Uint8Array): string {
  for (const [type, sig, offset] of SIGNATURES) if (startsWith(bytes, sig, offset)) return type;
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP") return "image/webp";
  if (ascii(bytes, 4, 8) === "ftyp") return "video/mp4";
  if (bytes.includes(0)) return "application/octet-stream";
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return "text/plain; charset=utf-8";
  } catch {
    return "application/octet-stream";
  }
}

/** The extension a sniffed type implies (Qase answers one); the file name's own when unknown. */
export function extensionOf(mime: string, filename: string): string {
  const known: Record<string, string> = {
    "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp", "application/pdf": "pdf",
    "application/zip": "zip", "application/gzip": "gz", "video/webm": "webm", "video/mp4": "mp4",
  };
  return own(known, mime.split(";")[0]!) ?? (/\.([A-Za-z0-9]{1,10})$/.exec(filename)?.[1]?.toLowerCase() ?? "");
}
