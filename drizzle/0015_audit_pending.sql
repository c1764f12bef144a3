CREATE TABLE "audit_pending" (
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "audit_pending_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"type" text NOT NULL,
	"actor_type" "actor_type" NOT NULL,
	"actor_id" text NOT NULL,
	"actor_name" text,
	"proposal_id" text,
	"payload_hash" text,
	"reason_code" text,
	"contract_version" integer,
	"data" jsonb NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	CONSTRAINT "audit_pending_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "audit_pending" ADD CONSTRAINT "audit_pending_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- A pending event is never edited, and leaves only by being chained: the chainer deletes it in the
-- transaction that inserts it into audit_events, after `set_config('countersign.chaining', 'on', true)`.
-- Like audit_events' trigger, this guards against mistakes and the application's own role, not
-- against the table's owner, who can disable triggers (docs/evidence.md, "How events are chained").
CREATE OR REPLACE FUNCTION audit_pending_refuse_change() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('countersign.chaining', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_pending rows leave only by being chained: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER audit_pending_chained_only
  BEFORE UPDATE OR DELETE ON audit_pending
  FOR EACH ROW EXECUTE FUNCTION audit_pending_refuse_change();
--> statement-breakpoint
CREATE TRIGGER audit_pending_no_truncate
  BEFORE TRUNCATE ON audit_pending
  FOR EACH STATEMENT EXECUTE FUNCTION audit_pending_refuse_change();
