ALTER TABLE `webhook_events` ADD `workspace_id` integer;--> statement-breakpoint
ALTER TABLE `webhook_subscriptions` ADD `workspace_id` integer;--> statement-breakpoint
UPDATE `webhook_events` SET `workspace_id` = (SELECT `workspace_id` FROM `tms_projects` p WHERE p.`code` = `webhook_events`.`project_code`) WHERE `project_code` IS NOT NULL;
