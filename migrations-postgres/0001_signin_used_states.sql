CREATE TABLE "admin_signin_used_states" (
	"state_hash" text PRIMARY KEY NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "admin_signin_used_states_expires" ON "admin_signin_used_states" USING btree ("expires_at");