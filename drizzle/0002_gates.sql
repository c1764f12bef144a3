DROP INDEX "intake_attempts_repair_idx";--> statement-breakpoint
DROP INDEX "intake_attempts_request_idx";--> statement-breakpoint
DROP INDEX "proposals_request_key";--> statement-breakpoint
ALTER TABLE "intake_attempts" ADD COLUMN "agent_name" text;--> statement-breakpoint
ALTER TABLE "intake_attempts" ADD COLUMN "root_request_id" text;--> statement-breakpoint
ALTER TABLE "intake_attempts" ADD COLUMN "message" text;--> statement-breakpoint
ALTER TABLE "intake_attempts" ADD COLUMN "raw_candidate" text;--> statement-breakpoint
ALTER TABLE "intake_attempts" ADD COLUMN "shadow" jsonb;--> statement-breakpoint
ALTER TABLE "policies" ADD COLUMN "expiry_hours" integer DEFAULT 24 NOT NULL;--> statement-breakpoint
ALTER TABLE "proposals" ADD COLUMN "resource_key" text;--> statement-breakpoint
ALTER TABLE "proposals" ADD COLUMN "facts" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "proposals" ADD COLUMN "evidence" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
CREATE INDEX "intake_attempts_root_idx" ON "intake_attempts" USING btree ("agent_key_id","root_request_id");--> statement-breakpoint
CREATE INDEX "proposals_resource_idx" ON "proposals" USING btree ("tenant_id","resource_key","status");--> statement-breakpoint
CREATE INDEX "intake_attempts_request_idx" ON "intake_attempts" USING btree ("agent_key_id","request_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "proposals_request_key" ON "proposals" USING btree ("agent_key_id","request_id");