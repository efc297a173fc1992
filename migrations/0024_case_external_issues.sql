CREATE TABLE `tms_case_external_issues` (
	`case_id` integer NOT NULL,
	`type` text NOT NULL,
	`issue_id` text NOT NULL,
	`created` text NOT NULL,
	PRIMARY KEY(`case_id`, `type`, `issue_id`),
	FOREIGN KEY (`case_id`) REFERENCES `tms_cases`(`id`) ON UPDATE no action ON DELETE cascade
);
