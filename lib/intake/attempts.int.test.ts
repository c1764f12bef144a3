import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createTenant } from '@/lib/admin/accounts';
import { setupTestDatabase } from '@/test/db';
import { ATTEMPTS_PAGE_SIZE, rejectedAttempts } from './attempts';

const t = setupTestDatabase();

describe('rejected attempts page by keyset without losing rows', () => {
  it('walks every row when timestamps differ only in microseconds across a page boundary', async () => {
    await createTenant(t.db, { id: 'micro', name: 'Micro' });
    const total = ATTEMPTS_PAGE_SIZE * 2 + 7;
    // All within one millisecond: a cursor cut to milliseconds would skip most of them.
    await t.db.execute(sql`
      insert into intake_attempts (id, tenant_id, outcome, http_status, error_code, created_at)
      select 'att_' || lpad(n::text, 4, '0'), 'micro', 'rejected', 422, 'contract_violation',
             timestamptz '2026-11-30 10:00:00.123000+00' + make_interval(secs => n / 1000000.0)
      from generate_series(1, ${total}) as n`);
    const seen: string[] = [];
    let page = await rejectedAttempts(t.db, 'micro');
    for (;;) {
      seen.push(...page.items.map((item) => item.id));
      if (!page.next) break;
      expect(page.next.createdAt).toMatch(/\.\d{6}Z$/);
      page = await rejectedAttempts(t.db, 'micro', { cursor: page.next });
    }
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    expect(seen[0]).toBe(`att_${String(total).padStart(4, '0')}`);
  });
});
