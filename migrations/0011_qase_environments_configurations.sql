CREATE TABLE `tms_configuration_groups` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`title` text NOT NULL,
	`created` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `tms_projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tms_configuration_groups_title` ON `tms_configuration_groups` (`project_id`,`title`);--> statement-breakpoint
CREATE TABLE `tms_configurations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`group_id` integer NOT NULL,
	`title` text NOT NULL,
	`created` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `tms_projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`group_id`) REFERENCES `tms_configuration_groups`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tms_configurations_title` ON `tms_configurations` (`group_id`,`title`);--> statement-breakpoint
CREATE INDEX `tms_configurations_project` ON `tms_configurations` (`project_id`);--> statement-breakpoint
CREATE TABLE `tms_environments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`title` text NOT NULL,
	`slug` text NOT NULL,
	`description` text,
	`host` text,
	`author_id` integer,
	`created` text NOT NULL,
	`updated` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `tms_projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tms_environments_slug` ON `tms_environments` (`project_id`,`slug`);--> statement-breakpoint
ALTER TABLE `tms_runs` ADD `environment_id` integer REFERENCES tms_environments(id) ON DELETE SET NULL;--> statement-breakpoint
ALTER TABLE `tms_runs` ADD `configurations` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `tms_runs` ADD `external_issue` text;