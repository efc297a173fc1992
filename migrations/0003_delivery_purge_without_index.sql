-- The retention purge walks delivery ids instead (webhooks/dispatcher.ts `purgeExpired`):
-- finishing a delivery then moves no entry in this index.
DROP INDEX `webhook_deliveries_finished`;