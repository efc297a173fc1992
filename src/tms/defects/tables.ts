import type { SEVERITY } from "../../qase/enums";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "../../directory/tables";
import type { StoredCustomFieldValue } from "../custom-fields/tables";
import { cases } from "../cases/tables";
import { milestones } from "../milestones/tables";
import { projects } from "../projects/tables";
import { runs } from "../runs/tables";

/** Qase's defect statuses (`DefectStatus`, `getDefects(status)`). */
export const DEFECT_STATUSES = ["open", "resolved", "in_progress", "invalid"] as const;
export type DefectStatus = (typeof DEFECT_STATUSES)[number];

export const defects = sqliteTable("tms_defects", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  projectId: integer("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
  /** The entity's number within its project: what the API and webhook payloads call its `id` (src/tms/shared/numbers.ts). */
  number: integer("number").notNull(),
  title: text("title").notNull(),
  actualResult: text("actual_result").notNull(),
  severity: text("severity").$type<(typeof SEVERITY.names)[number]>().notNull().default("normal"),
  status: text("status", { enum: DEFECT_STATUSES }).notNull().default("open"),
  caseId: integer("case_id").references(() => cases.id),
  step: integer("step"),
  runId: integer("run_id").references(() => runs.id, { onDelete: "set null" }),
  resultHash: text("result_hash"),
  milestoneId: integer("milestone_id").references(() => milestones.id, { onDelete: "set null" }),
  attachments: text("attachments", { mode: "json" }).$type<number[]>().notNull().default([]),
  tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default([]),
  /** Values of the workspace's defect custom fields (`custom_field` on create and update). */
  customFields: text("custom_fields", { mode: "json" }).$type<StoredCustomFieldValue[]>().notNull().default([]),
  authorId: integer("author_id").references(() => users.id),
  created: text("created").notNull(),
  updated: text("updated").notNull(),
  resolvedAt: text("resolved_at"),
}, (t) => [uniqueIndex("tms_defects_number").on(t.projectId, t.number), index("tms_defects_project").on(t.projectId)]);
