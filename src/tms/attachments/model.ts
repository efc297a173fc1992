import { t } from "elysia";
import { Envelope, Limit, Offset } from "../shared/envelope";
import { ATTACHMENT_MAX_FILES, ATTACHMENT_MAX_REQUEST_BYTES } from "./upload";

/** One file of an upload as the multipart reader hands it on (never sent as JSON). */
export const UploadedFiles = t.Object({
  files: t.Array(t.Object({ name: t.String(), bytes: t.Uint8Array() }), { minItems: 1 }),
});

/** Qase `AttachmentHash` (upload answer) and `AttachmentGet`. */
const AttachmentView = t.Object({
  hash: t.String({ description: "The attachment's id, as results, steps and cases reference it" }),
  filename: t.String(), file: t.String(), mime: t.String(), extension: t.String(), size: t.Integer(),
  url: t.String({ description: "Download (needs the Token header)" }), full_path: t.String(),
});
export const AttachmentUploaded = Envelope(t.Array(AttachmentView));
export const AttachmentResult = Envelope(AttachmentView);
export const AttachmentList = Envelope(t.Object({ total: t.Integer(), filtered: t.Integer(), count: t.Integer(), entities: t.Array(AttachmentView) }));
export const AttachmentListQuery = t.Object({ limit: Limit, offset: Offset });
export const HashParam = t.Object({ hash: t.String({ pattern: "^[1-9][0-9]{0,15}$", description: "Attachment hash (its decimal id)" }) });
export const HashResult = Envelope(t.Object({ hash: t.String() }));

/** What the OpenAPI document shows for the upload (the route reads multipart itself: upload.ts). */
export const UPLOAD_REQUEST_BODY = {
  required: true,
  description: `Any part holding a file is taken (Qase clients send \`file[]\`); up to ${ATTACHMENT_MAX_FILES} files and ${ATTACHMENT_MAX_REQUEST_BYTES / 1024 / 1024} MiB a request.`,
  content: {
    "multipart/form-data": {
      schema: {
        type: "object",
        required: ["file[]"],
        properties: { "file[]": { type: "array", minItems: 1, maxItems: ATTACHMENT_MAX_FILES, items: { type: "string", format: "binary", description: "A file; its name is kept, its media type is sniffed from the bytes" } } },
      },
      example: { "file[]": ["(the bytes of screenshot.png)"] },
    },
  },
};
