CREATE INDEX "audit_events_type_idx" ON "audit_events" USING btree ("tenant_id","type","seq");--> statement-breakpoint
CREATE INDEX "audit_events_actor_idx" ON "audit_events" USING btree ("tenant_id","actor_type","actor_id","seq");--> statement-breakpoint
CREATE INDEX "proposals_decided_idx" ON "proposals" USING btree ("tenant_id","decided_at","id") WHERE "proposals"."decided_at" is not null;