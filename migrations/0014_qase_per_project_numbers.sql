CREATE TABLE `tms_project_counters` (
	`project_id` integer NOT NULL,
	`entity` text NOT NULL,
	`last` integer NOT NULL,
	PRIMARY KEY(`project_id`, `entity`),
	FOREIGN KEY (`project_id`) REFERENCES `tms_projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Per-project numbers. Every existing row keeps its id as its number, so each reference clients,
-- reporter annotations (qase.id(57)), bookmarks and webhook receivers already hold keeps pointing
-- at the same entity; renumbering to 1..n would silently re-point old annotations at other cases
-- as a project grows. SQLite adds a NOT NULL column only with a default: 0 is never a number
-- (every insert allocates one, src/tms/shared/numbers.ts) and is overwritten right away.
--
-- Each project's counter starts at the highest id among its rows, or at the highest id ever
-- deleted from the table if that is higher: the project a deleted row belonged to is no longer
-- known, so no project may hand that id out again (numbers are never reused).
ALTER TABLE `tms_cases` ADD `number` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `tms_cases` SET `number` = `id`;--> statement-breakpoint
CREATE UNIQUE INDEX `tms_cases_number` ON `tms_cases` (`project_id`,`number`);--> statement-breakpoint
INSERT INTO `tms_project_counters` (`project_id`, `entity`, `last`)
SELECT `id`, 'case', `last` FROM (
	SELECT p.`id`, max(
		coalesce((SELECT max(t.`id`) FROM `tms_cases` t WHERE t.`project_id` = p.`id`), 0),
		coalesce((SELECT max(g) FROM (SELECT `seq` AS g FROM `sqlite_sequence` WHERE `name` = 'tms_cases' UNION ALL SELECT `id` - 1 FROM `tms_cases`)
			WHERE g >= 1 AND g NOT IN (SELECT `id` FROM `tms_cases`)), 0)
	) AS `last` FROM `tms_projects` p
) WHERE `last` > 0;--> statement-breakpoint
ALTER TABLE `tms_suites` ADD `number` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `tms_suites` SET `number` = `id`;--> statement-breakpoint
CREATE UNIQUE INDEX `tms_suites_number` ON `tms_suites` (`project_id`,`number`);--> statement-breakpoint
INSERT INTO `tms_project_counters` (`project_id`, `entity`, `last`)
SELECT `id`, 'suite', `last` FROM (
	SELECT p.`id`, max(
		coalesce((SELECT max(t.`id`) FROM `tms_suites` t WHERE t.`project_id` = p.`id`), 0),
		coalesce((SELECT max(g) FROM (SELECT `seq` AS g FROM `sqlite_sequence` WHERE `name` = 'tms_suites' UNION ALL SELECT `id` - 1 FROM `tms_suites`)
			WHERE g >= 1 AND g NOT IN (SELECT `id` FROM `tms_suites`)), 0)
	) AS `last` FROM `tms_projects` p
) WHERE `last` > 0;--> statement-breakpoint
ALTER TABLE `tms_milestones` ADD `number` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `tms_milestones` SET `number` = `id`;--> statement-breakpoint
CREATE UNIQUE INDEX `tms_milestones_number` ON `tms_milestones` (`project_id`,`number`);--> statement-breakpoint
INSERT INTO `tms_project_counters` (`project_id`, `entity`, `last`)
SELECT `id`, 'milestone', `last` FROM (
	SELECT p.`id`, max(
		coalesce((SELECT max(t.`id`) FROM `tms_milestones` t WHERE t.`project_id` = p.`id`), 0),
		coalesce((SELECT max(g) FROM (SELECT `seq` AS g FROM `sqlite_sequence` WHERE `name` = 'tms_milestones' UNION ALL SELECT `id` - 1 FROM `tms_milestones`)
			WHERE g >= 1 AND g NOT IN (SELECT `id` FROM `tms_milestones`)), 0)
	) AS `last` FROM `tms_projects` p
) WHERE `last` > 0;--> statement-breakpoint
ALTER TABLE `tms_plans` ADD `number` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `tms_plans` SET `number` = `id`;--> statement-breakpoint
CREATE UNIQUE INDEX `tms_plans_number` ON `tms_plans` (`project_id`,`number`);--> statement-breakpoint
INSERT INTO `tms_project_counters` (`project_id`, `entity`, `last`)
SELECT `id`, 'plan', `last` FROM (
	SELECT p.`id`, max(
		coalesce((SELECT max(t.`id`) FROM `tms_plans` t WHERE t.`project_id` = p.`id`), 0),
		coalesce((SELECT max(g) FROM (SELECT `seq` AS g FROM `sqlite_sequence` WHERE `name` = 'tms_plans' UNION ALL SELECT `id` - 1 FROM `tms_plans`)
			WHERE g >= 1 AND g NOT IN (SELECT `id` FROM `tms_plans`)), 0)
	) AS `last` FROM `tms_projects` p
) WHERE `last` > 0;--> statement-breakpoint
ALTER TABLE `tms_runs` ADD `number` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `tms_runs` SET `number` = `id`;--> statement-breakpoint
CREATE UNIQUE INDEX `tms_runs_number` ON `tms_runs` (`project_id`,`number`);--> statement-breakpoint
INSERT INTO `tms_project_counters` (`project_id`, `entity`, `last`)
SELECT `id`, 'run', `last` FROM (
	SELECT p.`id`, max(
		coalesce((SELECT max(t.`id`) FROM `tms_runs` t WHERE t.`project_id` = p.`id`), 0),
		coalesce((SELECT max(g) FROM (SELECT `seq` AS g FROM `sqlite_sequence` WHERE `name` = 'tms_runs' UNION ALL SELECT `id` - 1 FROM `tms_runs`)
			WHERE g >= 1 AND g NOT IN (SELECT `id` FROM `tms_runs`)), 0)
	) AS `last` FROM `tms_projects` p
) WHERE `last` > 0;--> statement-breakpoint
ALTER TABLE `tms_defects` ADD `number` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `tms_defects` SET `number` = `id`;--> statement-breakpoint
CREATE UNIQUE INDEX `tms_defects_number` ON `tms_defects` (`project_id`,`number`);--> statement-breakpoint
INSERT INTO `tms_project_counters` (`project_id`, `entity`, `last`)
SELECT `id`, 'defect', `last` FROM (
	SELECT p.`id`, max(
		coalesce((SELECT max(t.`id`) FROM `tms_defects` t WHERE t.`project_id` = p.`id`), 0),
		coalesce((SELECT max(g) FROM (SELECT `seq` AS g FROM `sqlite_sequence` WHERE `name` = 'tms_defects' UNION ALL SELECT `id` - 1 FROM `tms_defects`)
			WHERE g >= 1 AND g NOT IN (SELECT `id` FROM `tms_defects`)), 0)
	) AS `last` FROM `tms_projects` p
) WHERE `last` > 0;