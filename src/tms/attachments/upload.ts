import { ApiError, badRequest } from "../../http/errors";

/** Largest upload request: Bun's own cap on a request body (src/server MAX_REQUEST_BODY_BYTES). */
export const ATTACHMENT_MAX_REQUEST_BYTES = 32 * 1024 * 1024;
/** Files per upload request, as Qase takes them (the reporters batch by it). */
export const ATTACHMENT_MAX_FILES = 20;

/** Whether a request is the multipart attachment upload (the one /v1 route that is not JSON). */
export function isAttachmentUpload(request: Request): boolean {
  return request.method === "POST" && /^(\/api)?\/v1\/attachment\/[^/]+\/?$/.test(new URL(request.url).pathname);
}

/**
 * Reads a multipart upload within ATTACHMENT_MAX_REQUEST_BYTES, counted while the bytes arrive,
 * and returns its files (any field holding a file: Qase clients send `file[]`, curl users `file`).
 */
export async function readUpload(request: Request): Promise<{ files: { name: string; bytes: Uint8Array }[] }> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(type)) throw new ApiError(415, "unsupported_media_type", "Upload attachments as multipart/form-data");
  const tooLarge = () => new ApiError(413, "payload_too_large", `An upload is at most ${ATTACHMENT_MAX_REQUEST_BYTES} bytes`);
  if (Number(request.headers.get("content-length") ?? 0) > ATTACHMENT_MAX_REQUEST_BYTES) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body ?? []) {
    size += chunk.byteLength;
    if (size > ATTACHMENT_MAX_REQUEST_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  let form: Awaited<ReturnType<Response["formData"]>>;
  try {
    form = await new Response(Buffer.concat(chunks), { headers: { "content-type": type } }).formData();
  } catch {
    throw badRequest("The multipart body could not be read");
  }
  const files: { name: string; bytes: Uint8Array }[] = [];
  for (const value of form.values() as Iterable<unknown>) {
    if (!(value instanceof Blob)) continue;
    files.push({ name: baseName((value as Blob & { name?: string }).name ?? ""), bytes: new Uint8Array(await value.arrayBuffer()) });
  }
  if (!files.length) throw badRequest("The upload holds no file (send them as `file[]`)", "file");
  if (files.length > ATTACHMENT_MAX_FILES) throw badRequest(`At most ${ATTACHMENT_MAX_FILES} files per upload`, "file");
  return { files };
}

/**
 * The file name an upload is stored and echoed under: the part after the last slash or backslash
 * (a client's path, `../../etc/passwd`, is none of our business and must never look like one of
 * ours), without control characters, at most 255 characters; "attachment" when nothing is left.
 */
export function baseName(sent: string): string {
  const base = sent.split(/[\\/]/).pop()!.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  return (base === "" || base === "." || base === ".." ? "attachment" : base).slice(0, 255);
}
