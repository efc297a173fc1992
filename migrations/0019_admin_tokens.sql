CREATE TABLE `admin_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `admin_tokens_token_hash_unique` ON `admin_tokens` (`token_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `admin_tokens_live_name_unique` ON `admin_tokens` (lower("name")) WHERE "admin_tokens"."revoked_at" IS NULL;