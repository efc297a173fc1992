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
ALTER TABLE `users` ADD `user_name_key` text NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `external_id` text;--> statement-breakpoint
ALTER TABLE `users` ADD `given_name` text;--> statement-breakpoint
ALTER TABLE `users` ADD `family_name` text;--> statement-breakpoint
ALTER TABLE `users` ADD `formatted_name` text;--> statement-breakpoint
ALTER TABLE `users` ADD `display_name_given` text;--> statement-breakpoint
ALTER TABLE `users` ADD `display_name` text NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `title` text;--> statement-breakpoint
ALTER TABLE `users` ADD `user_type` text DEFAULT 'regular' NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `role` text DEFAULT 'member' NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `created_at` text NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `updated_at` text NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `users_user_name_key_unique` ON `users` (`user_name_key`);--> statement-breakpoint
CREATE INDEX `users_external_id_idx` ON `users` (`external_id`);--> statement-breakpoint
CREATE INDEX `users_active_type_idx` ON `users` (`active`,`user_type`);--> statement-breakpoint
CREATE INDEX `users_created_at_idx` ON `users` (`created_at`);