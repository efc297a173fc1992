CREATE TABLE `tms_attachments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`filename` text NOT NULL,
	`mime` text NOT NULL,
	`size` integer NOT NULL,
	`content` blob NOT NULL,
	`author_id` integer,
	`created` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `tms_projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tms_attachments_project` ON `tms_attachments` (`project_id`);