CREATE TABLE "action_definitions" (
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"version" integer NOT NULL,
	"document" jsonb NOT NULL,
	"document_hash" text NOT NULL,
	"note" text NOT NULL,
	"published_by" text NOT NULL,
	"published_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "action_definitions_tenant_id_name_version_pk" PRIMARY KEY("tenant_id","name","version"),
	CONSTRAINT "action_definitions_shape" CHECK ("action_definitions"."version" >= 1 and "action_definitions"."document_hash" ~ '^sha256:[0-9a-f]{64}$' and length("action_definitions"."note") between 1 and 500)
);
--> statement-breakpoint
ALTER TABLE "action_definitions" ADD CONSTRAINT "action_definitions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- A published version of a definition is what proposals were gated by: it is written once and
-- never edited or removed; a change is a new version. Like audit_tree_nodes' trigger, this guards
-- against mistakes and the application's own role, not against the table's owner.
CREATE OR REPLACE FUNCTION action_definitions_refuse_change() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'action_definitions is insert-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER action_definitions_insert_only
  BEFORE UPDATE OR DELETE ON action_definitions
  FOR EACH ROW EXECUTE FUNCTION action_definitions_refuse_change();
--> statement-breakpoint
CREATE TRIGGER action_definitions_no_truncate
  BEFORE TRUNCATE ON action_definitions
  FOR EACH STATEMENT EXECUTE FUNCTION action_definitions_refuse_change();
--> statement-breakpoint
-- The application's role may read and add versions, never change or remove one (migration 0024).
SELECT countersign_insert_only('action_definitions');
