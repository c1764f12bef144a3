ALTER TABLE "proposals" ADD COLUMN "claim_amount" numeric;--> statement-breakpoint
ALTER TABLE "proposals" ADD COLUMN "definition_version" integer;--> statement-breakpoint
CREATE INDEX "proposals_action_recent_idx" ON "proposals" USING btree ("tenant_id","action","created_at","id");