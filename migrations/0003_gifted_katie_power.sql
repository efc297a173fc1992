DROP INDEX `user_emails_user_idx`;--> statement-breakpoint
CREATE INDEX `user_emails_user_cover_idx` ON `user_emails` (`user_id`,`position`,`value`,`type`,`is_primary`);