ALTER TABLE `user_emails` ADD `display` text;--> statement-breakpoint
ALTER TABLE `users` ADD `profile` text DEFAULT '{}' NOT NULL;