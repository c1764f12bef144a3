ALTER TABLE "tenants" ADD COLUMN "executions_paused_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "executions_paused_by" text;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "executions_pause_reason" text;