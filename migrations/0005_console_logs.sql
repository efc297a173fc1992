CREATE TABLE `scim_activity` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`token_id` integer NOT NULL,
	`token_name` text NOT NULL,
	`operation` text NOT NULL,
	`resource_type` text NOT NULL,
	`resource_id` text,
	`resource_name` text,
	`status` integer NOT NULL,
	`scim_type` text,
	`detail` text,
	`request_id` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `scim_activity_resource` ON `scim_activity` (`resource_type`,`resource_id`);--> statement-breakpoint
ALTER TABLE `webhook_attempts` ADD `response_headers` text;--> statement-breakpoint
ALTER TABLE `webhook_attempts` ADD `cycle_attempt` integer;