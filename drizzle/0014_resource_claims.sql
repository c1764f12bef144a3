CREATE TABLE "resource_claims" (
	"tenant_id" text NOT NULL,
	"resource_key" text NOT NULL,
	"open_count" integer DEFAULT 0 NOT NULL,
	"open_total" numeric DEFAULT '0' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "resource_claims_tenant_id_resource_key_pk" PRIMARY KEY("tenant_id","resource_key")
);
--> statement-breakpoint
ALTER TABLE "resource_claims" ADD CONSTRAINT "resource_claims_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;