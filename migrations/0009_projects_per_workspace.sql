ALTER TABLE `tms_projects` ADD `workspace_id` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `workspace_id` integer DEFAULT 1 NOT NULL;