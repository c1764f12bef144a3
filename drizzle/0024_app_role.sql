-- The application's role (docs/operations.md, "The two database roles"). Migrations run as the
-- owner of the tables; the server, the worker and the CLI connect as `countersign_app`, which owns
-- nothing and may only read and insert into the audit tables. Chaining, the one way a pending event
-- leaves and the chain grows, is `audit_chain`, a SECURITY DEFINER function of the owner: no session
-- setting opens anything.
--
-- The role is made here when it is missing and the migrating role may create roles (PGlite, the
-- test suites, an install migrating as a superuser); `npm run cli -- db:roles` prints the SQL that
-- makes it (with a login) beforehand. Roles are cluster-wide: two databases migrating at once may
-- both try to create it.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'countersign_app') THEN
    CREATE ROLE countersign_app NOLOGIN;
  END IF;
EXCEPTION
  WHEN duplicate_object OR unique_violation THEN NULL;
  WHEN insufficient_privilege THEN
    RAISE EXCEPTION 'the role countersign_app is missing and % may not create it: create it first (npm run cli -- db:roles prints the SQL)', current_user;
END $$;
--> statement-breakpoint
-- Every table, now and later: read and write, never TRUNCATE (nor REFERENCES or TRIGGER). Later
-- tables get the same through the default privileges of the role that runs the migrations.
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO countersign_app;
--> statement-breakpoint
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO countersign_app;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO countersign_app;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO countersign_app;
--> statement-breakpoint
-- Functions are executable by PUBLIC unless said otherwise: none of the owner's are, by default.
-- (Not per schema: a schema's default privileges can only add to the global ones.)
ALTER DEFAULT PRIVILEGES REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;
--> statement-breakpoint
-- A process that starts checks that every migration is applied before it serves (db/client.ts).
GRANT USAGE ON SCHEMA drizzle TO countersign_app;
--> statement-breakpoint
GRANT SELECT ON drizzle.__drizzle_migrations TO countersign_app;
--> statement-breakpoint
-- What the application may do with one table, and nothing else (not even TRUNCATE, REFERENCES or TRIGGER).
CREATE FUNCTION countersign_app_may(target regclass, privileges text) RETURNS void
  LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  EXECUTE format('REVOKE ALL ON %s FROM PUBLIC, countersign_app', target);
  EXECUTE format('GRANT %s ON %s TO countersign_app', privileges, target);
END $$;
--> statement-breakpoint
-- How a migration makes a table insert-only for the application: `SELECT countersign_insert_only('audit_tree_nodes');`
-- (it may still read the table and add rows; nothing it does changes or removes one).
CREATE FUNCTION countersign_insert_only(target regclass) RETURNS void
  LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$ SELECT public.countersign_app_may(target, 'SELECT, INSERT') $$;
--> statement-breakpoint
-- …and a table only the owner's functions write (the application reads it).
CREATE FUNCTION countersign_read_only(target regclass) RETURNS void
  LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$ SELECT public.countersign_app_may(target, 'SELECT') $$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION countersign_app_may(regclass, text), countersign_insert_only(regclass), countersign_read_only(regclass) FROM PUBLIC;
--> statement-breakpoint
SELECT countersign_insert_only('audit_pending');
--> statement-breakpoint
SELECT countersign_read_only('audit_events');
--> statement-breakpoint
SELECT countersign_read_only('audit_heads');
--> statement-breakpoint
-- The transactions chaining right now, each inside `audit_chain`: the one mark the pending table's
-- trigger lets a DELETE through on. The application cannot write it; a session setting is no mark.
CREATE TABLE audit_chaining (xact xid8 PRIMARY KEY);
--> statement-breakpoint
REVOKE ALL ON audit_chaining FROM PUBLIC, countersign_app;
--> statement-breakpoint
-- Replaces migration 0015's function: `set_config('countersign.chaining', 'on')` opens nothing now.
-- Still a guard against mistakes by the owner itself (the application has no DELETE to start with).
CREATE OR REPLACE FUNCTION audit_pending_refuse_change() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF TG_OP = 'DELETE' AND EXISTS (SELECT FROM public.audit_chaining WHERE xact = pg_current_xact_id()) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_pending rows leave only by being chained: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION audit_pending_refuse_change() FROM PUBLIC;
--> statement-breakpoint
-- Chaining, step one: the tenant's head, created at the genesis if missing, locked until the
-- transaction ends (the application may not lock it itself: that takes UPDATE).
CREATE FUNCTION audit_chain_head(tenant text) RETURNS TABLE (seq bigint, hash text)
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
BEGIN
  INSERT INTO public.audit_heads AS h (tenant_id, seq, hash) VALUES (tenant, 0, 'sha256:genesis')
    ON CONFLICT (tenant_id) DO NOTHING;
  RETURN QUERY SELECT h.seq, h.hash FROM public.audit_heads h WHERE h.tenant_id = tenant FOR UPDATE;
END $$;
--> statement-breakpoint
-- Chaining, step two (lib/events/chainer.ts): the application hashed the tenant's oldest pending
-- rows in TypeScript (RFC 8785 JCS is never hand-written in SQL) and passes the head it hashed
-- against, the rows' ids in order, and one hash each. This function builds every event row itself
-- from the pending row's own columns, gives it the next seq, links its prev_hash to the locked
-- head, removes the pending rows and moves the head. It refuses anything but exactly the oldest
-- pending rows, in order, against the current head. So the most the caller can do is supply a
-- wrong hash; that row then fails verification (`hash_mismatch`), as a rewritten row does. No
-- argument makes an event disappear, change, reorder or skip the queue.
CREATE FUNCTION audit_chain(tenant text, head_seq bigint, head_hash text, ids bigint[], hashes text[]) RETURNS integer
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  head record;
  pending public.audit_pending;
  n integer := 0;
  prev text;
BEGIN
  IF ids IS NULL OR hashes IS NULL OR cardinality(ids) = 0 OR cardinality(ids) <> cardinality(hashes)
     OR array_position(hashes, NULL) IS NOT NULL OR array_ndims(ids) <> 1 OR array_ndims(hashes) <> 1 THEN
    RAISE EXCEPTION 'audit_chain takes one hash for each pending id' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  SELECT h.seq, h.hash INTO head FROM public.audit_heads h WHERE h.tenant_id = tenant FOR UPDATE;
  IF NOT FOUND OR head.seq IS DISTINCT FROM head_seq OR head.hash IS DISTINCT FROM head_hash THEN
    RAISE EXCEPTION 'audit_chain: the head of % is not the one given; hash against the current head', tenant USING ERRCODE = 'serialization_failure';
  END IF;
  INSERT INTO public.audit_chaining VALUES (pg_current_xact_id());
  prev := head.hash;
  FOR pending IN
    SELECT * FROM public.audit_pending p WHERE p.tenant_id = tenant ORDER BY p.id LIMIT cardinality(ids) FOR UPDATE
  LOOP
    n := n + 1;
    IF pending.id IS DISTINCT FROM ids[n] THEN
      RAISE EXCEPTION 'audit_chain: id % is not the oldest pending event of %', ids[n], tenant USING ERRCODE = 'serialization_failure';
    END IF;
    INSERT INTO public.audit_events (tenant_id, seq, type, actor_type, actor_id, actor_name, proposal_id, payload_hash,
        reason_code, contract_version, data, occurred_at, prev_hash, hash)
      VALUES (pending.tenant_id, head.seq + n, pending.type, pending.actor_type, pending.actor_id, pending.actor_name,
        pending.proposal_id, pending.payload_hash, pending.reason_code, pending.contract_version, pending.data,
        pending.occurred_at, prev, hashes[n]);
    DELETE FROM public.audit_pending p WHERE p.tenant_id = tenant AND p.id = pending.id;
    prev := hashes[n];
  END LOOP;
  IF n <> cardinality(ids) THEN
    RAISE EXCEPTION 'audit_chain: % has fewer pending events than ids given', tenant USING ERRCODE = 'serialization_failure';
  END IF;
  UPDATE public.audit_heads h SET seq = head.seq + n, hash = prev WHERE h.tenant_id = tenant;
  DELETE FROM public.audit_chaining WHERE xact = pg_current_xact_id();
  RETURN n;
END $$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION audit_chain_head(text), audit_chain(text, bigint, text, bigint[], text[]) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION audit_chain_head(text), audit_chain(text, bigint, text, bigint[], text[]) TO countersign_app;
