ALTER TABLE "notification_channels" ADD COLUMN "digest_threshold" integer DEFAULT 5 NOT NULL;--> statement-breakpoint
ALTER TABLE "notification_deliveries" ADD COLUMN "digest_id" text;--> statement-breakpoint
CREATE INDEX "notification_deliveries_digest_idx" ON "notification_deliveries" USING btree ("digest_id") WHERE "notification_deliveries"."digest_id" is not null;