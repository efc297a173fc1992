import type { BEHAVIOR, CASE_STATUS, CASE_TYPE, LAYER, PRIORITY, SEVERITY } from "../../qase/enums";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "../../directory/tables";
import type { StoredCustomFieldValue } from "../custom-fields/tables";
import { milestones } from "../milestones/tables";
import { projects } from "../projects/tables";
import type { ParameterValues } from "../shared-parameters/tables";
import { suites } from "../suites/tables";

export type CaseStep = {
  position: number;
  action: string;
  expected_result: string;
  data: string;
  shared_hash: string | null;
  attachments: number[];
};
export type CaseCustomFieldValue = StoredCustomFieldValue;
/**
 * A case parameter (Qase `TestCaseParameterCreate`): a single parameter or a group kept in the
 * case, or a reference to a shared parameter of the workspace (answered with its current values).
 */
export type CaseParameter = { shared_id: string } | { type: "single"; item: ParameterValues } | { type: "group"; items: ParameterValues[] };

/**
 * Test cases. Steps, attachment ids, custom field values and tags are JSON columns: they are
 * always read and written with their case, never queried on their own.
 * Deleting a case is soft (`deleted` set): runs, results and defects keep pointing at it.
 */
export const cases = sqliteTable("tms_cases", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  projectId: integer("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
  /** The entity's number within its project: what the API and webhook payloads call its `id` (src/tms/shared/numbers.ts). */
  number: integer("number").notNull(),
  suiteId: integer("suite_id").references(() => suites.id, { onDelete: "set null" }),
  milestoneId: integer("milestone_id").references(() => milestones.id, { onDelete: "set null" }),
  position: integer("position").notNull(),
  title: text("title").notNull(),
  description: text("description").notNull().default(""),
  preconditions: text("preconditions").notNull().default(""),
  postconditions: text("postconditions").notNull().default(""),
  severity: text("severity").$type<(typeof SEVERITY.names)[number]>().notNull().default("normal"),
  priority: text("priority").$type<(typeof PRIORITY.names)[number]>().notNull().default("undefined"),
  type: text("type").$type<(typeof CASE_TYPE.names)[number]>().notNull().default("other"),
  behavior: text("behavior").$type<(typeof BEHAVIOR.names)[number]>().notNull().default("undefined"),
  layer: text("layer").$type<(typeof LAYER.names)[number]>().notNull().default("unknown"),
  isFlaky: integer("is_flaky", { mode: "boolean" }).notNull().default(false),
  isAutomated: integer("is_automated", { mode: "boolean" }).notNull().default(false),
  /** Qase's third automation state: a manual case planned for automation (`automation` 1, `isToBeAutomated`); never set on an automated case. */
  toBeAutomated: integer("to_be_automated", { mode: "boolean" }).notNull().default(false),
  isDeprecated: integer("is_deprecated", { mode: "boolean" }).notNull().default(false),
  status: text("status").$type<(typeof CASE_STATUS.names)[number]>().notNull().default("actual"),
  revision: integer("revision").notNull().default(1),
  steps: text("steps", { mode: "json" }).$type<CaseStep[]>().notNull().default([]),
  attachments: text("attachments", { mode: "json" }).$type<number[]>().notNull().default([]),
  customFields: text("custom_fields", { mode: "json" }).$type<CaseCustomFieldValue[]>().notNull().default([]),
  tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default([]),
  /** Parameter names → values seen (Qase `params`); set from reporters' `params` on auto-created cases. */
  params: text("params", { mode: "json" }).$type<Record<string, string[]>>().notNull().default({}),
  /** Qase `parameters` set through the v1 case routes (src/tms/cases/parameters.ts). */
  parameters: text("parameters", { mode: "json" }).$type<CaseParameter[]>().notNull().default([]),
  /** The reporter signature (suite path + title + parameters) an auto-created case is matched by. */
  signature: text("signature"),
  authorId: integer("author_id").references(() => users.id),
  created: text("created").notNull(),
  updated: text("updated").notNull(),
  deleted: text("deleted"),
}, (t) => [uniqueIndex("tms_cases_number").on(t.projectId, t.number), index("tms_cases_project").on(t.projectId, t.deleted), index("tms_cases_suite").on(t.suiteId), index("tms_cases_position").on(t.projectId, t.suiteId, t.position), index("tms_cases_signature").on(t.projectId, t.signature)]);

/**
 * Issues in an external tracker linked to a case (Qase's case external issues: attach/detach):
 * one row per case, tracker type and issue id, so attaching the same issue twice keeps one.
 */
export const caseExternalIssues = sqliteTable("tms_case_external_issues", {
  caseId: integer("case_id").notNull().references(() => cases.id, { onDelete: "cascade" }),
  /** The tracker integration (`jira-cloud`, `jira-server`). */
  type: text("type").notNull(),
  /** The issue's id in the tracker as the client sent it (trimmed), e.g. "SHOP-42". */
  issueId: text("issue_id").notNull(),
  created: text("created").notNull(),
}, (t) => [primaryKey({ columns: [t.caseId, t.type, t.issueId] })]);
