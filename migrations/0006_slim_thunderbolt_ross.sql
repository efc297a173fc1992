DROP INDEX `webhook_deliveries_subscription`;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_subscription_id` ON `webhook_deliveries` (`subscription_id`,`id`);