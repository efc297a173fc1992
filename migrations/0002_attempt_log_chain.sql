-- webhook_attempts becomes an append-only log without index or foreign key: each attempt points
-- at the delivery's previous attempt and the delivery at its latest (src/webhooks/tables.ts).
-- Hand-edited from drizzle-kit's output: the chain of existing attempts is built here, while the
-- old delivery_id index still exists; rows logged so far keep their request_headers JSON.
ALTER TABLE `webhook_deliveries` ADD `last_attempt_id` integer;--> statement-breakpoint
UPDATE `webhook_deliveries` SET `last_attempt_id` = (SELECT max(a.`id`) FROM `webhook_attempts` a WHERE a.`delivery_id` = `webhook_deliveries`.`id`);--> statement-breakpoint
CREATE TABLE `__new_webhook_attempts` (
	`id` integer PRIMARY KEY NOT NULL,
	`delivery_id` integer NOT NULL,
	`previous_attempt_id` integer,
	`started_at` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`url` text NOT NULL,
	`request_headers` text,
	`user_agent` text,
	`signature` text,
	`status_code` integer,
	`error` text,
	`response_body` text
);
--> statement-breakpoint
INSERT INTO `__new_webhook_attempts`("id", "delivery_id", "previous_attempt_id", "started_at", "duration_ms", "url", "request_headers", "status_code", "error", "response_body")
  SELECT a."id", a."delivery_id", (SELECT max(p."id") FROM `webhook_attempts` p WHERE p."delivery_id" = a."delivery_id" AND p."id" < a."id"),
         a."started_at", a."duration_ms", a."url", a."request_headers", a."status_code", a."error", a."response_body"
    FROM `webhook_attempts` a;--> statement-breakpoint
DROP TABLE `webhook_attempts`;--> statement-breakpoint
ALTER TABLE `__new_webhook_attempts` RENAME TO `webhook_attempts`;
