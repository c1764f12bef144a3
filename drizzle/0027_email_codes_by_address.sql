ALTER TABLE "email_codes" ADD COLUMN "email" text;--> statement-breakpoint
UPDATE "email_codes" SET "email" = "users"."email" FROM "users" WHERE "users"."id" = "email_codes"."user_id";--> statement-breakpoint
ALTER TABLE "email_codes" ALTER COLUMN "email" SET NOT NULL;--> statement-breakpoint
DROP INDEX "email_codes_user_idx";--> statement-breakpoint
ALTER TABLE "email_codes" DROP CONSTRAINT "email_codes_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "email_codes" DROP COLUMN "user_id";--> statement-breakpoint
CREATE INDEX "email_codes_email_idx" ON "email_codes" USING btree ("email","created_at");
