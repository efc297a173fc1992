CREATE TABLE `tms_cases` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`suite_id` integer,
	`milestone_id` integer,
	`position` integer NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`preconditions` text DEFAULT '' NOT NULL,
	`postconditions` text DEFAULT '' NOT NULL,
	`severity` text DEFAULT 'normal' NOT NULL,
	`priority` text DEFAULT 'undefined' NOT NULL,
	`type` text DEFAULT 'other' NOT NULL,
	`behavior` text DEFAULT 'undefined' NOT NULL,
	`layer` text DEFAULT 'unknown' NOT NULL,
	`is_flaky` integer DEFAULT false NOT NULL,
	`is_automated` integer DEFAULT false NOT NULL,
	`is_deprecated` integer DEFAULT false NOT NULL,
	`status` text DEFAULT 'actual' NOT NULL,
	`revision` integer DEFAULT 1 NOT NULL,
	`steps` text DEFAULT '[]' NOT NULL,
	`attachments` text DEFAULT '[]' NOT NULL,
	`custom_fields` text DEFAULT '[]' NOT NULL,
	`tags` text DEFAULT '[]' NOT NULL,
	`author_id` integer,
	`created` text NOT NULL,
	`updated` text NOT NULL,
	`deleted` text,
	FOREIGN KEY (`project_id`) REFERENCES `tms_projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`suite_id`) REFERENCES `tms_suites`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`milestone_id`) REFERENCES `tms_milestones`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tms_cases_project` ON `tms_cases` (`project_id`,`deleted`);--> statement-breakpoint
CREATE INDEX `tms_cases_suite` ON `tms_cases` (`suite_id`);--> statement-breakpoint
CREATE INDEX `tms_cases_position` ON `tms_cases` (`project_id`,`suite_id`,`position`);--> statement-breakpoint
CREATE TABLE `tms_custom_fields` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`title` text NOT NULL,
	`entity` text NOT NULL,
	`type` text NOT NULL,
	`options` text,
	`placeholder` text,
	`default_value` text,
	`is_required` integer DEFAULT false NOT NULL,
	`is_filterable` integer DEFAULT true NOT NULL,
	`is_visible` integer DEFAULT true NOT NULL,
	`is_enabled_for_all_projects` integer DEFAULT true NOT NULL,
	`project_codes` text DEFAULT '[]' NOT NULL,
	`author_id` integer,
	`created` text NOT NULL,
	`updated` text NOT NULL,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `tms_defects` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`title` text NOT NULL,
	`actual_result` text NOT NULL,
	`severity` text DEFAULT 'normal' NOT NULL,
	`status` text DEFAULT 'open' NOT NULL,
	`case_id` integer,
	`step` integer,
	`run_id` integer,
	`result_hash` text,
	`milestone_id` integer,
	`attachments` text DEFAULT '[]' NOT NULL,
	`tags` text DEFAULT '[]' NOT NULL,
	`author_id` integer,
	`created` text NOT NULL,
	`updated` text NOT NULL,
	`resolved_at` text,
	FOREIGN KEY (`project_id`) REFERENCES `tms_projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`case_id`) REFERENCES `tms_cases`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`run_id`) REFERENCES `tms_runs`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`milestone_id`) REFERENCES `tms_milestones`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tms_defects_project` ON `tms_defects` (`project_id`);--> statement-breakpoint
CREATE TABLE `tms_milestones` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`status` text DEFAULT 'active' NOT NULL,
	`due_date` text,
	`author_id` integer,
	`created` text NOT NULL,
	`updated` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `tms_projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tms_milestones_project` ON `tms_milestones` (`project_id`);--> statement-breakpoint
CREATE TABLE `tms_plan_cases` (
	`plan_id` integer NOT NULL,
	`case_id` integer NOT NULL,
	`position` integer NOT NULL,
	PRIMARY KEY(`plan_id`, `case_id`),
	FOREIGN KEY (`plan_id`) REFERENCES `tms_plans`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`case_id`) REFERENCES `tms_cases`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `tms_plans` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`author_id` integer,
	`created` text NOT NULL,
	`updated` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `tms_projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tms_plans_project` ON `tms_plans` (`project_id`);--> statement-breakpoint
CREATE TABLE `tms_projects` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`code` text NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`access` text DEFAULT 'all' NOT NULL,
	`author_id` integer,
	`created` text NOT NULL,
	`updated` text NOT NULL,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tms_projects_code_unique` ON `tms_projects` (`code`);--> statement-breakpoint
CREATE TABLE `tms_results` (
	`hash` text PRIMARY KEY NOT NULL,
	`run_id` integer NOT NULL,
	`case_id` integer NOT NULL,
	`status` text NOT NULL,
	`time_ms` integer,
	`comment` text,
	`stacktrace` text,
	`steps` text DEFAULT '[]' NOT NULL,
	`attachments` text DEFAULT '[]' NOT NULL,
	`author_id` integer,
	`created` text NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `tms_runs`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`case_id`) REFERENCES `tms_cases`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tms_results_run` ON `tms_results` (`run_id`,`case_id`);--> statement-breakpoint
CREATE TABLE `tms_run_cases` (
	`run_id` integer NOT NULL,
	`case_id` integer NOT NULL,
	`position` integer NOT NULL,
	`status` text,
	PRIMARY KEY(`run_id`, `case_id`),
	FOREIGN KEY (`run_id`) REFERENCES `tms_runs`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`case_id`) REFERENCES `tms_cases`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `tms_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`plan_id` integer,
	`milestone_id` integer,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`environment` text,
	`is_autotest` integer DEFAULT false NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`is_public` integer DEFAULT false NOT NULL,
	`tags` text DEFAULT '[]' NOT NULL,
	`author_id` integer,
	`start_time` text NOT NULL,
	`end_time` text,
	FOREIGN KEY (`project_id`) REFERENCES `tms_projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`plan_id`) REFERENCES `tms_plans`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`milestone_id`) REFERENCES `tms_milestones`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tms_runs_project` ON `tms_runs` (`project_id`);--> statement-breakpoint
CREATE INDEX `tms_runs_plan` ON `tms_runs` (`plan_id`,`status`);--> statement-breakpoint
CREATE TABLE `tms_shared_steps` (
	`hash` text PRIMARY KEY NOT NULL,
	`project_id` integer NOT NULL,
	`title` text NOT NULL,
	`action` text NOT NULL,
	`expected_result` text,
	`data` text,
	`author_id` integer,
	`created` text NOT NULL,
	`updated` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `tms_projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tms_shared_steps_project` ON `tms_shared_steps` (`project_id`);--> statement-breakpoint
CREATE TABLE `tms_suites` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`parent_id` integer,
	`title` text NOT NULL,
	`description` text,
	`preconditions` text,
	`position` integer NOT NULL,
	`author_id` integer,
	`created` text NOT NULL,
	`updated` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `tms_projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`parent_id`) REFERENCES `tms_suites`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tms_suites_project` ON `tms_suites` (`project_id`);--> statement-breakpoint
CREATE INDEX `tms_suites_parent` ON `tms_suites` (`parent_id`);--> statement-breakpoint
CREATE TABLE `api_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`user_id` integer,
	`created_at` text NOT NULL,
	`last_used_at` text,
	`revoked_at` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_token_hash_unique` ON `api_tokens` (`token_hash`);