CREATE TABLE `workspace_members` (
	`workspace_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`workspace_id`, `user_id`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `workspace_members_user_id_idx` ON `workspace_members` (`user_id`);--> statement-breakpoint
CREATE TABLE `workspaces` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`archived_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workspaces_name_key_unique` ON `workspaces` (`name_key`);--> statement-breakpoint
DROP INDEX `groups_display_name_key_unique`;--> statement-breakpoint
ALTER TABLE `groups` ADD `workspace_id` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `groups_display_name_key_workspace_unique` ON `groups` (`display_name_key`,`workspace_id`);--> statement-breakpoint
ALTER TABLE `scim_tokens` ADD `workspace_id` integer REFERENCES workspaces(id);--> statement-breakpoint
-- Data: the default workspace holds everything that existed before workspaces; existing SCIM tokens stay organization tokens (workspace_id NULL).
INSERT INTO `workspaces` (`id`, `name`, `name_key`, `created_at`, `updated_at`) VALUES (1, 'Default', 'default', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));--> statement-breakpoint
INSERT INTO `workspace_members` (`workspace_id`, `user_id`, `created_at`) SELECT 1, `id`, `created_at` FROM `users`;
