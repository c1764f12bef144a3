ALTER TABLE "proposals" ADD COLUMN "claim_amount" numeric;--> statement-breakpoint
ALTER TABLE "proposals" ADD COLUMN "definition_version" integer;