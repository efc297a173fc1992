import type { ResultStatus } from "./counts";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "../../directory/tables";
import type { StoredCustomFieldValue } from "../custom-fields/tables";
import { cases } from "../cases/tables";
import { environments } from "../environments/tables";
import { milestones } from "../milestones/tables";
import { plans } from "../plans/tables";
import { projects } from "../projects/tables";

import { RUN_STATUS } from "../../qase/enums";

export const RUN_STATUSES = RUN_STATUS.names;

export const runs = sqliteTable("tms_runs", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  projectId: integer("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
  /** The entity's number within its project: what the API and webhook payloads call its `id` (src/tms/shared/numbers.ts). */
  number: integer("number").notNull(),
  planId: integer("plan_id").references(() => plans.id, { onDelete: "set null" }),
  milestoneId: integer("milestone_id").references(() => milestones.id, { onDelete: "set null" }),
  title: text("title").notNull(),
  description: text("description").notNull().default(""),
  /** The environment's slug as the run was started with it (kept if the environment is deleted). */
  environment: text("environment"),
  environmentId: integer("environment_id").references(() => environments.id, { onDelete: "set null" }),
  /** Configuration ids (tms_configurations) the run ran with. */
  configurations: text("configurations", { mode: "json" }).$type<number[]>().notNull().default([]),
  /** A link to an issue in an external tracker (`POST /run/{code}/external-issue`). */
  externalIssue: text("external_issue", { mode: "json" }).$type<{ type: string; link: string } | null>(),
  isAutotest: integer("is_autotest", { mode: "boolean" }).notNull().default(false),
  status: text("status", { enum: RUN_STATUSES }).notNull().default("active"),
  isPublic: integer("is_public", { mode: "boolean" }).notNull().default(false),
  /** The secret in the public report's address; a new one each time the report is made public, none while private. */
  publicToken: text("public_token"),
  tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default([]),
  /** Values of the workspace's run custom fields (`custom_field` on create and update). */
  customFields: text("custom_fields", { mode: "json" }).$type<StoredCustomFieldValue[]>().notNull().default([]),
  authorId: integer("author_id").references(() => users.id),
  startTime: text("start_time").notNull(),
  endTime: text("end_time"),
}, (t) => [uniqueIndex("tms_runs_number").on(t.projectId, t.number), index("tms_runs_project").on(t.projectId), index("tms_runs_plan").on(t.planId, t.status), uniqueIndex("tms_runs_public_token").on(t.publicToken)]);

/**
 * The cases of a run with the status of their latest result (null = no result yet). Keeping the
 * latest status here makes "latest result per case wins" a single UPDATE and the completion
 * counts one GROUP BY over the run's cases, however many results were posted.
 */
export const runCases = sqliteTable("tms_run_cases", {
  runId: integer("run_id").notNull().references(() => runs.id, { onDelete: "cascade" }),
  caseId: integer("case_id").notNull().references(() => cases.id),
  position: integer("position").notNull(),
  status: text("status"),
}, (t) => [primaryKey({ columns: [t.runId, t.caseId] })]);

/** A step of a result as a reporter sent it: its texts, outcome and sub-steps. */
export type ResultStep = {
  position: number;
  status: ResultStatus;
  comment: string | null;
  action: string;
  expected_result: string | null;
  data: string | null;
  attachments: number[];
  steps: ResultStep[];
};

/**
 * Every posted result (history); the run case row holds the latest one's status.
 * `client_id` is the v2 result `id` (the reporters' idempotency key): a retried batch finds its
 * rows by it and stores nothing twice. `unlinked_reason` says why a result that named a case id
 * is attached to another case (the id did not exist; it was matched by signature instead).
 */
export const results = sqliteTable("tms_results", {
  hash: text("hash").primaryKey(),
  runId: integer("run_id").notNull().references(() => runs.id, { onDelete: "cascade" }),
  caseId: integer("case_id").notNull().references(() => cases.id),
  status: text("status").$type<ResultStatus>().notNull(),
  timeMs: integer("time_ms"),
  comment: text("comment"),
  stacktrace: text("stacktrace"),
  steps: text("steps", { mode: "json" }).$type<ResultStep[]>().notNull().default([]),
  attachments: text("attachments", { mode: "json" }).$type<number[]>().notNull().default([]),
  params: text("params", { mode: "json" }).$type<Record<string, string>>().notNull().default({}),
  clientId: text("client_id"),
  unlinkedReason: text("unlinked_reason"),
  authorId: integer("author_id").references(() => users.id),
  created: text("created").notNull(),
}, (t) => [index("tms_results_run").on(t.runId, t.caseId), uniqueIndex("tms_results_client_id").on(t.runId, t.clientId, t.caseId)]);
