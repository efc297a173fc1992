import type { AppContext } from "../../context";
import { Elysia } from "elysia";
import { projectApi, TMS_BODY_ERRORS, tmsApi, tmsErrorAnswers, tmsResponses } from "../shared/api";
import { CodeParam, ok, page, paging } from "../shared/envelope";
import { AttachmentList, AttachmentListQuery, AttachmentResult, AttachmentUploaded, HashParam, HashResult, UPLOAD_REQUEST_BODY, UploadedFiles } from "./model";
import { attachmentFile, deleteAttachment, getAttachment, listAttachments, uploadAttachments } from "./service";
import { SNIFFED_MEDIA_TYPES } from "./sniff";

/** What these routes may answer besides 2xx: unknown project or entity, a duplicate, body limits. */
const ERRS = [404, 409, ...TMS_BODY_ERRORS] as const;

const detail = (summary: string, extra: object = {}) => ({ tags: ["Attachments"], summary, ...extra });

/** Qase attachments; the multipart body is read by the TMS body hook (src/tms/index.ts, upload.ts). */
export function attachmentRoutes(ctx: AppContext) {
  const base = ctx.config.baseUrl;
  const upload = projectApi(ctx)
    .post("/attachment/:code", async ({ project, body, caller }) => ok(await uploadAttachments(ctx.db, base, caller, project, body.files)), {
      params: CodeParam, body: UploadedFiles, response: tmsResponses({ 200: AttachmentUploaded }, ERRS),
      detail: detail("Upload files (multipart `file[]`; up to 20 files and 32 MiB a request; type sniffed from the bytes)", { requestBody: UPLOAD_REQUEST_BODY }),
    });
  // Everything else addresses an attachment by hash alone, within the token's workspace.
  const byHash = tmsApi(ctx)
    .get("/attachment", async ({ query, caller }) => {
      const r = await listAttachments(ctx.db, base, caller.workspaceId, paging(query));
      return page(r.entities, r.total, r.filtered);
    }, { query: AttachmentListQuery, response: tmsResponses({ 200: AttachmentList }, ERRS), detail: detail("List attachments") })
    .get("/attachment/:hash", async ({ params, caller }) => ok(await getAttachment(ctx.db, base, caller.workspaceId, params.hash)), {
      params: HashParam, response: tmsResponses({ 200: AttachmentResult }, ERRS), detail: detail("Get an attachment's details"),
    })
    .get("/attachment/:hash/file", async ({ params, caller }) => {
      const a = await attachmentFile(ctx.db, caller.workspaceId, params.hash);
      // Always a download, never rendered by the browser in this origin.
      return new Response(a.content, {
        headers: {
          "content-type": a.mime, "content-length": String(a.size), "x-content-type-options": "nosniff",
          "content-disposition": `attachment; filename="${a.filename.replace(/[^\x20-\x7e]|["\\]/g, "_")}"; filename*=UTF-8''${encodeURIComponent(a.filename)}`,
          "content-security-policy": "default-src 'none'; sandbox", "cache-control": "private, no-store",
        },
      });
    }, {
      params: HashParam,
      detail: detail("Download an attachment (Gatehouse extension; Content-Disposition: attachment)", {
        responses: {
          200: { description: "The file's bytes, as the media type sniffed at upload", content: Object.fromEntries(SNIFFED_MEDIA_TYPES.map((type) => [type, { schema: { type: "string", format: "binary" } }])) },
          ...tmsErrorAnswers([404]),
        },
      }),
    })
    .delete("/attachment/:hash", async ({ params, caller }) => ok(await deleteAttachment(ctx.db, caller.workspaceId, params.hash)), {
      params: HashParam, response: tmsResponses({ 200: HashResult }, ERRS), detail: detail("Delete an attachment"),
    });
  return new Elysia().use(upload).use(byHash);
}
