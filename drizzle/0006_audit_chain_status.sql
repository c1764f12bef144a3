ALTER TABLE "audit_chain_checks" ADD COLUMN "broken_reason" text;--> statement-breakpoint
ALTER TABLE "audit_chain_checks" ADD COLUMN "verified_through_seq" bigint;--> statement-breakpoint
ALTER TABLE "audit_chain_checks" ADD COLUMN "verified_through_at" timestamp with time zone;