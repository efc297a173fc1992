ALTER TABLE `tms_runs` ADD `public_token` text;--> statement-breakpoint
CREATE UNIQUE INDEX `tms_runs_public_token` ON `tms_runs` (`public_token`);