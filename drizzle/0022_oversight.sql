CREATE TYPE "public"."view_channel" AS ENUM('notification', 'queue', 'page');--> statement-breakpoint
CREATE TABLE "oversight_alarms" (
	"tenant_id" text NOT NULL,
	"user_id" text NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"window_days" integer NOT NULL,
	"decisions" integer NOT NULL,
	"approval_rate" numeric NOT NULL,
	"median_dwell_ms" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oversight_alarms_tenant_id_user_id_window_start_window_days_pk" PRIMARY KEY("tenant_id","user_id","window_start","window_days")
);
--> statement-breakpoint
CREATE TABLE "proposal_views" (
	"tenant_id" text NOT NULL,
	"proposal_id" text NOT NULL,
	"user_id" text NOT NULL,
	"first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"channel" "view_channel" NOT NULL,
	CONSTRAINT "proposal_views_proposal_id_user_id_pk" PRIMARY KEY("proposal_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "oversight_min_decisions" integer DEFAULT 20 NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "oversight_approval_rate_percent" integer DEFAULT 98 NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "oversight_median_dwell_seconds" integer DEFAULT 5 NOT NULL;--> statement-breakpoint
ALTER TABLE "oversight_alarms" ADD CONSTRAINT "oversight_alarms_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oversight_alarms" ADD CONSTRAINT "oversight_alarms_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "proposal_views" ADD CONSTRAINT "proposal_views_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "proposal_views" ADD CONSTRAINT "proposal_views_proposal_id_proposals_id_fk" FOREIGN KEY ("proposal_id") REFERENCES "public"."proposals"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "proposal_views" ADD CONSTRAINT "proposal_views_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "decisions_tenant_recent_idx" ON "decisions" USING btree ("tenant_id","created_at");