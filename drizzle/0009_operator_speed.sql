ALTER TABLE "proposals" ADD COLUMN "flags" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "proposals" ADD COLUMN "drift" jsonb;--> statement-breakpoint
CREATE INDEX "proposals_resource_recent_idx" ON "proposals" USING btree ("tenant_id","resource_key","created_at","id");--> statement-breakpoint
CREATE INDEX "proposals_agent_recent_idx" ON "proposals" USING btree ("tenant_id","agent_name","created_at","id");