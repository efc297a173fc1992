ALTER TABLE `users` ADD `emails` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
-- Backfill: each user's e-mails in the order the IdP sent them, rendered as SCIM renders them
-- ({"value", "type" when set, "primary"}).
UPDATE `users` SET `emails` = (
	SELECT json_group_array(
		CASE WHEN e.`type` IS NULL
			THEN json_object('value', e.`value`, 'primary', json(CASE WHEN e.`is_primary` THEN 'true' ELSE 'false' END))
			ELSE json_object('value', e.`value`, 'type', e.`type`, 'primary', json(CASE WHEN e.`is_primary` THEN 'true' ELSE 'false' END))
		END ORDER BY e.`position`)
	FROM `user_emails` e WHERE e.`user_id` = `users`.`id`
) WHERE EXISTS (SELECT 1 FROM `user_emails` e WHERE e.`user_id` = `users`.`id`);
