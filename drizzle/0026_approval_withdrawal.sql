CREATE TYPE "public"."approval_withdrawal" AS ENUM('role_changed', 'removed');--> statement-breakpoint
ALTER TABLE "decisions" ADD COLUMN "withdrawn_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "decisions" ADD COLUMN "withdrawn_reason" "approval_withdrawal";--> statement-breakpoint
ALTER TABLE "decisions" ADD COLUMN "withdrawn_role" "role";