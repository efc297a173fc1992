import { and, count, eq } from "drizzle-orm";
import type { Db } from "../../db/connection";
import { notFound } from "../../http/errors";
import { writeTransaction } from "../../db/transaction";
import type { ProjectRow } from "../projects/service";
import { projects } from "../projects/tables";
import type { Caller } from "../shared/auth";
import type { Reader } from "../shared/lookup";
import { isoMicro } from "../shared/time";
import { inProject } from "../shared/write";
import { extensionOf, sniffMediaType } from "./sniff";
import { attachments } from "./tables";

type Meta = Omit<typeof attachments.$inferSelect, "content">;
const meta = { id: attachments.id, projectId: attachments.projectId, filename: attachments.filename, mime: attachments.mime, size: attachments.size, authorId: attachments.authorId, created: attachments.created };

export function attachmentView(baseUrl: string, a: Meta) {
  const url = `${baseUrl}/api/v1/attachment/${a.id}/file`;
  return { hash: String(a.id), filename: a.filename, file: a.filename, mime: a.mime, extension: extensionOf(a.mime, a.filename), size: a.size, url, full_path: url };
}

/** Stores every file of one upload in one transaction, each with the media type its bytes show. */
export function uploadAttachments(db: Db, baseUrl: string, caller: Caller, p: ProjectRow, files: { name: string; bytes: Uint8Array }[]) {
  return inProject(db, p, ({ tx }) => {
    const now = isoMicro();
    return files.map((f) => attachmentView(baseUrl, tx.insert(attachments).values({
      projectId: p.id, filename: f.name, mime: sniffMediaType(f.bytes), size: f.bytes.byteLength, content: Buffer.from(f.bytes), authorId: caller.userId, created: now,
    }).returning(meta).get()));
  });
}

/**
 * Attachments are addressed by hash alone (Qase's paths name no project), so each lookup is
 * limited to the projects of the caller's workspace: another workspace's file is "not found".
 */
function requireAttachment(db: Reader, workspaceId: number, hash: string): Meta {
  const a = db.select(meta).from(attachments).innerJoin(projects, eq(projects.id, attachments.projectId))
    .where(and(eq(attachments.id, Number(hash)), eq(projects.workspaceId, workspaceId))).get();
  if (!a) throw notFound(`Attachment ${hash}`);
  return a;
}

export const getAttachment = (db: Db, baseUrl: string, workspaceId: number, hash: string) => attachmentView(baseUrl, requireAttachment(db, workspaceId, hash));

/** The file itself: its bytes, sniffed type and name. */
export function attachmentFile(db: Db, workspaceId: number, hash: string) {
  requireAttachment(db, workspaceId, hash);
  return db.select().from(attachments).where(eq(attachments.id, Number(hash))).get()!;
}

export function listAttachments(db: Db, baseUrl: string, workspaceId: number, q: { limit: number; offset: number }) {
  const where = eq(projects.workspaceId, workspaceId);
  const total = db.select({ n: count() }).from(attachments).innerJoin(projects, eq(projects.id, attachments.projectId)).where(where).get()!.n;
  const rows = db.select(meta).from(attachments).innerJoin(projects, eq(projects.id, attachments.projectId)).where(where).orderBy(attachments.id).limit(q.limit).offset(q.offset).all();
  return { total, filtered: total, entities: rows.map((a) => attachmentView(baseUrl, a)) };
}

/** Results, steps and cases keep the id; fetching it answers 404 from then on. */
export function deleteAttachment(db: Db, workspaceId: number, hash: string) {
  return writeTransaction(db, (tx) => {
    requireAttachment(tx, workspaceId, hash);
    tx.delete(attachments).where(eq(attachments.id, Number(hash))).run();
    return { hash };
  });
}
