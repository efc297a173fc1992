ALTER TABLE `tms_defects` ADD `custom_fields` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `tms_runs` ADD `custom_fields` text DEFAULT '[]' NOT NULL;