import { and, count, eq } from "drizzle-orm";
import type { Db } from "../../db/connection";
import { notFound } from "../../http/errors";
import { first, writeTransaction } from "../../db/transaction";
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
  return inProject(db, p, async ({ tx }) => {
    const now = isoMicro();
    const stored: Meta[] = [];
    for (const f of files) {
      const [row] = await tx.insert(attachments).values({
        projectId: p.id, filename: f.name, mime: sniffMediaType(f.bytes), size: f.bytes.byteLength, content: Buffer.from(f.bytes), authorId: caller.userId, created: now,
      }).returning(meta);
      stored.push(row!);
    }
    return stored.map((a) => attachmentView(baseUrl, a));
  });
}

/**
 * Attachments are addressed by hash alone (Qase's paths name no project), so each lookup is
 * limited to the projects of the caller's workspace: another workspace's file is "not found".
 */
async function requireAttachment(db: Reader, workspaceId: number, hash: string): Promise<Meta> {
  // A hash is an attachment's integer key; anything else names none (and is never bound as a number).
  if (!/^\d{1,15}$/.test(hash)) throw notFound(`Attachment ${hash}`);
  const a = await first(db.select(meta).from(attachments).innerJoin(projects, eq(projects.id, attachments.projectId))
    .where(and(eq(attachments.id, Number(hash)), eq(projects.workspaceId, workspaceId))));
  if (!a) throw notFound(`Attachment ${hash}`);
  return a;
}

export const getAttachment = async (db: Db, baseUrl: string, workspaceId: number, hash: string) => attachmentView(baseUrl, await requireAttachment(db, workspaceId, hash));

/** The file itself: its bytes, sniffed type and name. */
export async function attachmentFile(db: Db, workspaceId: number, hash: string) {
  await requireAttachment(db, workspaceId, hash);
  return (await first(db.select().from(attachments).where(eq(attachments.id, Number(hash)))))!;
}

export async function listAttachments(db: Db, baseUrl: string, workspaceId: number, q: { limit: number; offset: number }) {
  const where = eq(projects.workspaceId, workspaceId);
  const total = (await first(db.select({ n: count() }).from(attachments).innerJoin(projects, eq(projects.id, attachments.projectId)).where(where)))!.n;
  const rows = await db.select(meta).from(attachments).innerJoin(projects, eq(projects.id, attachments.projectId)).where(where).orderBy(attachments.id).limit(q.limit).offset(q.offset);
  return { total, filtered: total, entities: rows.map((a) => attachmentView(baseUrl, a)) };
}

/** Results, steps and cases keep the id; fetching it answers 404 from then on. */
export function deleteAttachment(db: Db, workspaceId: number, hash: string) {
  return writeTransaction(db, async (tx) => {
    await requireAttachment(tx, workspaceId, hash);
    await tx.delete(attachments).where(eq(attachments.id, Number(hash)));
    return { hash };
  });
}
