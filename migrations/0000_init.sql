CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `group_members` (
	`group_id` text NOT NULL,
	`user_id` integer NOT NULL,
	PRIMARY KEY(`group_id`, `user_id`),
	FOREIGN KEY (`group_id`) REFERENCES `groups`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `group_members_user_id_idx` ON `group_members` (`user_id`);--> statement-breakpoint
CREATE TABLE `groups` (
	`id` text PRIMARY KEY NOT NULL,
	`display_name` text NOT NULL,
	`display_name_key` text NOT NULL,
	`external_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `groups_display_name_key_unique` ON `groups` (`display_name_key`);--> statement-breakpoint
CREATE TABLE `scim_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` text NOT NULL,
	`last_used_at` text,
	`revoked_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `scim_tokens_token_hash_unique` ON `scim_tokens` (`token_hash`);--> statement-breakpoint
CREATE TABLE `user_emails` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`position` integer NOT NULL,
	`value` text NOT NULL,
	`value_key` text NOT NULL,
	`type` text,
	`is_primary` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `user_emails_value_key_idx` ON `user_emails` (`value_key`);--> statement-breakpoint
CREATE INDEX `user_emails_user_cover_idx` ON `user_emails` (`user_id`,`position`,`value`,`type`,`is_primary`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_name` text NOT NULL,
	`user_name_key` text NOT NULL,
	`external_id` text,
	`given_name` text,
	`family_name` text,
	`formatted_name` text,
	`display_name_given` text,
	`display_name` text NOT NULL,
	`title` text,
	`user_type` text DEFAULT 'regular' NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`role` text DEFAULT 'member' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_user_name_key_unique` ON `users` (`user_name_key`);--> statement-breakpoint
CREATE INDEX `users_external_id_idx` ON `users` (`external_id`);--> statement-breakpoint
CREATE INDEX `users_active_type_idx` ON `users` (`active`,`user_type`);--> statement-breakpoint
CREATE INDEX `users_created_at_idx` ON `users` (`created_at`);--> statement-breakpoint
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
CREATE UNIQUE INDEX `api_tokens_token_hash_unique` ON `api_tokens` (`token_hash`);--> statement-breakpoint
CREATE TABLE `webhook_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`delivery_id` integer NOT NULL,
	`started_at` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`url` text NOT NULL,
	`request_headers` text NOT NULL,
	`status_code` integer,
	`error` text,
	`response_body` text,
	FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery` ON `webhook_attempts` (`delivery_id`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`subscription_id` integer NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`locked_until` integer,
	`last_status_code` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`event_id`) REFERENCES `webhook_events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`subscription_id`) REFERENCES `webhook_subscriptions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`subscription_id`,`next_attempt_at`) WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX `webhook_deliveries_subscription_id` ON `webhook_deliveries` (`subscription_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_event` ON `webhook_deliveries` (`event_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_finished` ON `webhook_deliveries` (`finished_at`) WHERE status = 'delivered';--> statement-breakpoint
CREATE TABLE `webhook_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uid` text NOT NULL,
	`name` text NOT NULL,
	`project_code` text,
	`payload` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_events_uid` ON `webhook_events` (`uid`);--> statement-breakpoint
CREATE INDEX `webhook_events_created` ON `webhook_events` (`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_subscriptions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`project_code` text,
	`description` text DEFAULT '' NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`disabled_reason` text,
	`secret` text NOT NULL,
	`previous_secret` text,
	`previous_secret_expires_at` integer,
	`failing_since` integer,
	`last_success_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
