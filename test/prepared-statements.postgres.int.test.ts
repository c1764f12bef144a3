import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { tenants } from '@/db/schema';
import { setupTestDatabase } from '@/test/db';

/**
 * The PostgreSQL driver runs drizzle's queries as prepared statements: a query sent before on the
 * same connection is one round trip (no describe first), in and out of transactions.
 */
const t = setupTestDatabase();

describe('prepared statements on PostgreSQL', () => {
  it('keeps each parameterized query prepared on its connection, inside transactions and savepoints too', async () => {
    const seen = await t.db.transaction(async (tx) => {
      await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, 'ten_prepared_1'));
      await tx.transaction(async (inner) => {
        await inner.select({ name: tenants.name }).from(tenants).where(eq(tenants.id, 'ten_prepared_2'));
      });
      return tx
        .select({ statement: sql<string>`statement` })
        .from(sql`pg_prepared_statements`)
        .where(sql`not from_sql`);
    });
    const texts = seen.map((row) => row.statement);
    expect(texts.some((text) => text.includes('"id" from "tenants" where "tenants"."id" = $1'))).toBe(true);
    expect(texts.some((text) => text.includes('"name" from "tenants" where "tenants"."id" = $1'))).toBe(true);
  });
});
