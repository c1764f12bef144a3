CREATE TABLE "audit_tree_nodes" (
	"tenant_id" text NOT NULL,
	"level" integer NOT NULL,
	"index" bigint NOT NULL,
	"hash" text NOT NULL,
	CONSTRAINT "audit_tree_nodes_tenant_id_level_index_pk" PRIMARY KEY("tenant_id","level","index"),
	CONSTRAINT "audit_tree_nodes_shape" CHECK ("audit_tree_nodes"."level" between 0 and 62 and "audit_tree_nodes"."index" >= 0 and "audit_tree_nodes"."hash" ~ '^[0-9a-f]{64}$')
);
--> statement-breakpoint
ALTER TABLE "audit_tree_nodes" ADD CONSTRAINT "audit_tree_nodes_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- A subtree's hash is a fact about events that never change: it is written once and never edited
-- or removed. Like audit_events' trigger, this guards against mistakes and the application's own
-- role, not against the table's owner (docs/evidence.md, "The log format").
CREATE OR REPLACE FUNCTION audit_tree_nodes_refuse_change() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'audit_tree_nodes is insert-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER audit_tree_nodes_insert_only
  BEFORE UPDATE OR DELETE ON audit_tree_nodes
  FOR EACH ROW EXECUTE FUNCTION audit_tree_nodes_refuse_change();
--> statement-breakpoint
CREATE TRIGGER audit_tree_nodes_no_truncate
  BEFORE TRUNCATE ON audit_tree_nodes
  FOR EACH STATEMENT EXECUTE FUNCTION audit_tree_nodes_refuse_change();
--> statement-breakpoint
-- The application's role may read and add subtree hashes, never change or remove one (migration 0024).
SELECT countersign_insert_only('audit_tree_nodes');
