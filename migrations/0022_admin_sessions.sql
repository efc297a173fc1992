CREATE TABLE `admin_sessions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id_hash` text NOT NULL,
	`csrf_token` text NOT NULL,
	`subject` text NOT NULL,
	`issuer` text NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`id_token` text,
	`source_ip` text,
	`user_agent` text,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `admin_sessions_id_hash_unique` ON `admin_sessions` (`id_hash`);--> statement-breakpoint
CREATE INDEX `admin_sessions_expires` ON `admin_sessions` (`expires_at`);