-- Custom fields belong to a workspace, as projects and shared parameters do (before this, one
-- field reached every workspace: a token of any workspace listed and changed them all). A field
-- made before applied to every project of the organization (is_enabled_for_all_projects) or to
-- the projects its project_codes named, whatever their workspace. No field may stop applying to a
-- project it applied to, and no value a case holds may be lost or point at another workspace's
-- field; so a field is kept, with its id, in one workspace and copied into each other one it is
-- needed in:
-- - it is needed in a workspace when it applies to a project there (every workspace, for a field
--   enabled for all projects: a project created there later gets it too, as it did), or when a
--   case of a project there holds a value for it (a project dropped from project_codes keeps its
--   cases' values, so the copy exists, applying to the projects it applied to: none);
-- - it keeps its id in the default workspace when needed there (the only one before workspaces,
--   so most references clients hold stay valid), else in the lowest-numbered workspace it is
--   needed in; a field needed nowhere stays in the default workspace;
-- - a copy takes the next ids after every id the table ever handed out (sqlite_sequence), so no
--   copy takes the id of a deleted field whose old values cases still hold; it has the original's
--   title, type, options (same option ids, so selectbox values need no change), flags, author and
--   timestamps;
-- - every field's project_codes keep the codes of projects of its own workspace only (a code that
--   named no project named nothing before either);
-- - cases of a workspace that received a copy have their values for the field re-pointed at the
--   copy's id, in place (the order of values and the values themselves unchanged).
ALTER TABLE `tms_custom_fields` ADD `workspace_id` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE INDEX `tms_custom_fields_workspace` ON `tms_custom_fields` (`workspace_id`);--> statement-breakpoint
CREATE TEMP TABLE `custom_field_reach` (`field_id` integer NOT NULL, `workspace_id` integer NOT NULL, PRIMARY KEY (`field_id`, `workspace_id`));--> statement-breakpoint
INSERT OR IGNORE INTO `custom_field_reach` (`field_id`, `workspace_id`)
SELECT f.`id`, w.`id` FROM `tms_custom_fields` f, `workspaces` w WHERE f.`is_enabled_for_all_projects` = 1;--> statement-breakpoint
INSERT OR IGNORE INTO `custom_field_reach` (`field_id`, `workspace_id`)
SELECT f.`id`, p.`workspace_id` FROM `tms_custom_fields` f, json_each(f.`project_codes`) c
JOIN `tms_projects` p ON p.`code` = upper(c.`value`)
WHERE f.`is_enabled_for_all_projects` = 0;--> statement-breakpoint
INSERT OR IGNORE INTO `custom_field_reach` (`field_id`, `workspace_id`)
SELECT DISTINCT f.`id`, p.`workspace_id` FROM `tms_cases` k
JOIN `tms_projects` p ON p.`id` = k.`project_id`, json_each(k.`custom_fields`) v
JOIN `tms_custom_fields` f ON f.`id` = CAST(json_extract(v.`value`, '$.field_id') AS integer);--> statement-breakpoint
UPDATE `tms_custom_fields` SET `workspace_id` = coalesce((SELECT min(r.`workspace_id`) FROM `custom_field_reach` r WHERE r.`field_id` = `tms_custom_fields`.`id`), 1);--> statement-breakpoint
CREATE TEMP TABLE `custom_field_copies` (`copy_id` integer PRIMARY KEY, `field_id` integer NOT NULL, `workspace_id` integer NOT NULL, UNIQUE (`field_id`, `workspace_id`));--> statement-breakpoint
INSERT INTO `custom_field_copies` (`copy_id`, `field_id`, `workspace_id`)
SELECT b.`last` + row_number() OVER (ORDER BY r.`field_id`, r.`workspace_id`), r.`field_id`, r.`workspace_id`
FROM `custom_field_reach` r JOIN `tms_custom_fields` f ON f.`id` = r.`field_id`,
	(SELECT max(coalesce((SELECT `seq` FROM `sqlite_sequence` WHERE `name` = 'tms_custom_fields'), 0), coalesce((SELECT max(`id`) FROM `tms_custom_fields`), 0)) AS `last`) b
WHERE r.`workspace_id` <> f.`workspace_id`;--> statement-breakpoint
INSERT INTO `tms_custom_fields` (`id`, `workspace_id`, `title`, `entity`, `type`, `options`, `placeholder`, `default_value`, `is_required`, `is_filterable`, `is_visible`, `is_enabled_for_all_projects`, `project_codes`, `author_id`, `created`, `updated`)
SELECT c.`copy_id`, c.`workspace_id`, f.`title`, f.`entity`, f.`type`, f.`options`, f.`placeholder`, f.`default_value`, f.`is_required`, f.`is_filterable`, f.`is_visible`, f.`is_enabled_for_all_projects`, f.`project_codes`, f.`author_id`, f.`created`, f.`updated`
FROM `custom_field_copies` c JOIN `tms_custom_fields` f ON f.`id` = c.`field_id` ORDER BY c.`copy_id`;--> statement-breakpoint
UPDATE `tms_custom_fields` SET `project_codes` = (
	SELECT json_group_array(upper(c.`value`) ORDER BY c.`key`) FROM json_each(`tms_custom_fields`.`project_codes`) c
	WHERE EXISTS (SELECT 1 FROM `tms_projects` p WHERE p.`code` = upper(c.`value`) AND p.`workspace_id` = `tms_custom_fields`.`workspace_id`)
);--> statement-breakpoint
UPDATE `tms_cases` SET `custom_fields` = (
	SELECT json_group_array(json(CASE WHEN c.`copy_id` IS NULL THEN v.`value` ELSE json_set(v.`value`, '$.field_id', CAST(c.`copy_id` AS text)) END) ORDER BY v.`key`)
	FROM json_each(`tms_cases`.`custom_fields`) v
	LEFT JOIN `custom_field_copies` c ON c.`field_id` = CAST(json_extract(v.`value`, '$.field_id') AS integer)
		AND c.`workspace_id` = (SELECT p.`workspace_id` FROM `tms_projects` p WHERE p.`id` = `tms_cases`.`project_id`)
)
WHERE EXISTS (
	SELECT 1 FROM json_each(`tms_cases`.`custom_fields`) v
	JOIN `custom_field_copies` c ON c.`field_id` = CAST(json_extract(v.`value`, '$.field_id') AS integer)
		AND c.`workspace_id` = (SELECT p.`workspace_id` FROM `tms_projects` p WHERE p.`id` = `tms_cases`.`project_id`)
);--> statement-breakpoint
DROP TABLE `custom_field_reach`;--> statement-breakpoint
DROP TABLE `custom_field_copies`;
