ALTER TABLE `tms_cases` ADD `params` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `tms_cases` ADD `signature` text;--> statement-breakpoint
CREATE INDEX `tms_cases_signature` ON `tms_cases` (`project_id`,`signature`);--> statement-breakpoint
ALTER TABLE `tms_results` ADD `params` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `tms_results` ADD `client_id` text;--> statement-breakpoint
ALTER TABLE `tms_results` ADD `unlinked_reason` text;--> statement-breakpoint
CREATE UNIQUE INDEX `tms_results_client_id` ON `tms_results` (`run_id`,`client_id`,`case_id`);