-- Live SCIM tokens that share a name (case-insensitively) are told apart before the name becomes
-- unique: the oldest keeps it, each later one gets " (token <id>)" appended.
UPDATE `scim_tokens` SET `name` = `name` || ' (token ' || `id` || ')'
WHERE `revoked_at` IS NULL AND EXISTS (
	SELECT 1 FROM `scim_tokens` AS `older`
	WHERE `older`.`revoked_at` IS NULL AND lower(`older`.`name`) = lower(`scim_tokens`.`name`) AND `older`.`id` < `scim_tokens`.`id`
);--> statement-breakpoint
CREATE UNIQUE INDEX `scim_tokens_live_name_unique` ON `scim_tokens` (lower("name")) WHERE "scim_tokens"."revoked_at" IS NULL;
