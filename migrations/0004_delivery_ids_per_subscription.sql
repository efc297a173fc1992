-- Each subscription counts its deliveries; a new delivery's id is the subscription id × 2^32 plus
-- that count (src/webhooks/tables.ts `deliveryId`), so a subscription's deliveries are stored
-- together. Deliveries made before this migration keep their ids.
ALTER TABLE `webhook_subscriptions` ADD `delivery_seq` integer DEFAULT 0 NOT NULL;