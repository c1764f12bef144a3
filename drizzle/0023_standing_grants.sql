CREATE TYPE "public"."grant_end" AS ENUM('revoked', 'role_changed', 'granter_removed', 'policy_changed');--> statement-breakpoint
CREATE TABLE "grants" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"proposal_id" text NOT NULL,
	"granted_by" text NOT NULL,
	"granter_role" "role" NOT NULL,
	"action" text NOT NULL,
	"agent_key_id" text NOT NULL,
	"agent_name" text NOT NULL,
	"resource_key" text,
	"rule" text NOT NULL,
	"policy_version" integer NOT NULL,
	"money_field" text,
	"currency" text,
	"max_count" integer NOT NULL,
	"max_total_minor" bigint,
	"used_count" integer DEFAULT 0 NOT NULL,
	"used_total_minor" bigint DEFAULT 0 NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"end_reason" "grant_end",
	"ended_by" text,
	"end_note" text
);
--> statement-breakpoint
ALTER TABLE "proposals" ADD COLUMN "grant_id" text;--> statement-breakpoint
ALTER TABLE "grants" ADD CONSTRAINT "grants_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grants" ADD CONSTRAINT "grants_proposal_id_proposals_id_fk" FOREIGN KEY ("proposal_id") REFERENCES "public"."proposals"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grants" ADD CONSTRAINT "grants_granted_by_users_id_fk" FOREIGN KEY ("granted_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grants" ADD CONSTRAINT "grants_agent_key_id_agent_keys_id_fk" FOREIGN KEY ("agent_key_id") REFERENCES "public"."agent_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "grants_proposal_key" ON "grants" USING btree ("proposal_id");--> statement-breakpoint
CREATE INDEX "grants_cover_idx" ON "grants" USING btree ("tenant_id","action","agent_key_id") WHERE "grants"."ended_at" is null;--> statement-breakpoint
CREATE INDEX "grants_recent_idx" ON "grants" USING btree ("tenant_id","created_at","id");--> statement-breakpoint
CREATE INDEX "grants_granter_idx" ON "grants" USING btree ("tenant_id","granted_by") WHERE "grants"."ended_at" is null;