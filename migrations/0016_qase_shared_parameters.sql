CREATE TABLE `tms_shared_parameters` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uuid` text NOT NULL,
	`workspace_id` integer NOT NULL,
	`title` text NOT NULL,
	`type` text NOT NULL,
	`parameters` text NOT NULL,
	`is_enabled_for_all_projects` integer NOT NULL,
	`project_codes` text DEFAULT '[]' NOT NULL,
	`author_id` integer,
	`created` text NOT NULL,
	`updated` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tms_shared_parameters_uuid_unique` ON `tms_shared_parameters` (`uuid`);--> statement-breakpoint
CREATE INDEX `tms_shared_parameters_workspace` ON `tms_shared_parameters` (`workspace_id`);