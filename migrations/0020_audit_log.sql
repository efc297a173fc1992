CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`actor_kind` text NOT NULL,
	`actor_name` text NOT NULL,
	`actor_role` text,
	`source_ip` text,
	`user_agent` text,
	`request_id` text,
	`action` text NOT NULL,
	`resource_type` text,
	`resource_id` text,
	`summary` text,
	`outcome` text NOT NULL,
	`detail` text
);
--> statement-breakpoint
CREATE INDEX `audit_log_at` ON `audit_log` (`at`);--> statement-breakpoint
CREATE INDEX `audit_log_actor` ON `audit_log` (`actor_name`);--> statement-breakpoint
CREATE INDEX `audit_log_resource` ON `audit_log` (`resource_type`,`resource_id`);