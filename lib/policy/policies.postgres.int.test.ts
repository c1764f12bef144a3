import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents, policies } from '@/db/schema';
import { Refusal } from '@/lib/errors/refusal';
import { chainAllPending } from '@/lib/events/chainer';
import { setupTestDatabase } from '@/test/db';
import { seededWorld } from '@/test/world';
import { currentPolicies } from './current';
import { savePolicies } from './save';

const t = setupTestDatabase();
const seeded = seededWorld(t);

describe('two admins saving the same version at once (PostgreSQL)', () => {
  it('exactly one wins; the other gets 409 stale_policy and writes nothing', async () => {
    for (let round = 0; round < 5; round++) {
      const document = await currentPolicies(t.db, 'acme');
      const hold = document.find((view) => view.action === 'hold_stock')!;
      const edit = (approvals: number, who: 'carol' | 'alice') =>
        savePolicies(
          t.db,
          'acme',
          { type: 'user', id: seeded.world.userId(who) },
          {
            policies: [{ ...hold, rules: [{ ...hold.rules[0]!, approvals }] }],
            note: `${who} sets ${approvals} approvers`,
          },
        );
      // Two different edits, each a change from the newest version (an unchanged one would publish nothing).
      const now = hold.rules[0]!.approvals;
      const outcomes = await Promise.allSettled([edit((now % 5) + 1, 'carol'), edit(((now + 1) % 5) + 1, 'alice')]);
      const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      const lost = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]).toBeInstanceOf(Refusal);
      expect(lost[0]).toMatchObject({
        status: 409,
        code: 'stale_policy',
        details: { action: 'hold_stock', yourVersion: hold.version },
      });
      const next = hold.version + 1;
      const rows = await t.db
        .select()
        .from(policies)
        .where(and(eq(policies.tenantId, 'acme'), eq(policies.action, 'hold_stock'), eq(policies.version, next)));
      expect(rows).toHaveLength(1);
      await chainAllPending(t.db);
      const events = await t.db
        .select()
        .from(auditEvents)
        .where(
          and(
            eq(auditEvents.type, 'policy.published'),
            eq(auditEvents.reasonCode, `v${next}`),
            eq(auditEvents.tenantId, 'acme'),
          ),
        );
      expect(events.filter((event) => event.data.action === 'hold_stock')).toHaveLength(1);
    }
  });
});
