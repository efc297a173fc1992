-- The latest attempt of a delivery moves onto its row; webhook_attempts keeps the earlier ones and
-- stores user agent and signature instead of a headers JSON (old rows keep theirs). drizzle-kit's
-- generated copy selected the two new columns from the old table; edited to copy only the old ones.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_webhook_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`delivery_id` integer NOT NULL,
	`started_at` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`url` text NOT NULL,
	`request_headers` text,
	`user_agent` text,
	`signature` text,
	`status_code` integer,
	`error` text,
	`response_body` text,
	FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_webhook_attempts`("id", "delivery_id", "started_at", "duration_ms", "url", "request_headers", "status_code", "error", "response_body") SELECT "id", "delivery_id", "started_at", "duration_ms", "url", "request_headers", "status_code", "error", "response_body" FROM `webhook_attempts`;--> statement-breakpoint
DROP TABLE `webhook_attempts`;--> statement-breakpoint
ALTER TABLE `__new_webhook_attempts` RENAME TO `webhook_attempts`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery` ON `webhook_attempts` (`delivery_id`);--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `last_attempt_at` integer;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `last_duration_ms` integer;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `last_url` text;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `last_user_agent` text;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `last_signature` text;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `last_response_body` text;