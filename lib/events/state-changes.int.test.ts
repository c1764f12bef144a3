import { and, asc, desc, eq, gt } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { type AuditEvent, auditEvents } from '@/db/schema';
import {
  changePassword,
  createAgentKey,
  createTenant,
  createUser,
  endSessionsOf,
  grantRole,
  removeMember,
  revokeAgentKey,
} from '@/lib/admin/accounts';
import { endSession, sessionIsLive, startSession } from '@/lib/auth/sessions';
import { admitSignIn, signInFailed } from '@/lib/auth/throttle';
import { executeCommand } from '@/lib/commands/execute';
import { decide } from '@/lib/decisions/decide';
import { extendExpiry } from '@/lib/decisions/extend';
import { reviseProposal } from '@/lib/decisions/revise';
import { chainAllPending, chainPending } from '@/lib/events/chainer';
import { expireOverdue } from '@/lib/jobs/expire-proposals';
import { publishPolicy } from '@/lib/policy/publish';
import { setupTestDatabase } from '@/test/db';
import { approvedCommand, writeClients } from '@/test/fixtures/jobs';
import { submitAs } from '@/test/intake';
import { auditRowsFor } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';

/**
 * Every state change is an audit event in the same transaction (docs/design.md §8): each path below
 * is walked for real and must leave exactly these events, in order, naming who did it, and
 * nothing of the payload values, evidence text, typed emails or passwords.
 */
const t = setupTestDatabase();
const systems = setupDemoSystems();
const seeded = seededWorld(t);
let sequence = 0;

const EVIDENCE_TEXT = 'Customer requested a full refund';
const REFUND_REASON = 'Lid cracked in transit';

function refund(amountMinor: number, now?: Date) {
  sequence += 1;
  const body = {
    requestId: `req_walk_${sequence}`,
    action: 'issue_refund',
    contractVersion: 1,
    args: { orderId: 'ord_1842', amountMinor, currency: 'USD', reason: REFUND_REASON },
    evidenceRefs: ['ticket_message_73'],
  };
  return submitAs(t.db, systems.client, seeded.acme, body, { now }).then((result) => result.proposal);
}

/** The events of one proposal as [type, actor type, actor id]. */
async function walked(proposalId: string): Promise<[string, string, string][]> {
  const rows = await auditRowsFor(t.db, proposalId);
  for (const row of rows) {
    expect(JSON.stringify(row)).not.toContain(EVIDENCE_TEXT);
    expect(JSON.stringify(row)).not.toContain(REFUND_REASON);
  }
  return rows.map((row) => [row.type, row.actorType, row.actorId]);
}

describe('every proposal state change leaves its event', () => {
  const alice = () => seeded.world.userId('alice');
  const agent = () => seeded.acme.keyId;

  it.each<[string, () => Promise<{ ids: string[]; expected: () => [string, string, string][][] }>]>([
    [
      'create → approve → mint → execute',
      async () => {
        const minted = await approvedCommand(
          t.db,
          systems.client,
          seeded.acme,
          alice(),
          {
            requestId: `req_walk_exec`,
            action: 'issue_refund',
            contractVersion: 1,
            args: { orderId: 'ord_1842', amountMinor: 1250, currency: 'USD', reason: REFUND_REASON },
          },
          new Date(),
        );
        const write = writeClients(systems.systems.service.url, systems.systems.credentials);
        expect(
          (
            await executeCommand(t.db, {
              scope: minted.scope,
              jws: minted.jws,
              systems: systems.client,
              writeClient: write(minted.scope),
              deadlineMs: 1_000,
            })
          ).status,
        ).toBe('succeeded');
        return {
          ids: [minted.proposal.id],
          expected: () => [
            [
              ['proposal.created', 'agent', agent()],
              ['proposal.approved', 'user', alice()],
              ['command.minted', 'system', 'countersign'],
              ['execution.started', 'system', 'executor:payments'],
              ['execution.succeeded', 'system', 'executor:payments'],
            ],
          ],
        };
      },
    ],
    [
      'create → reject',
      async () => {
        const proposal = await refund(1300);
        await decide(t.db, systems.client, {
          userId: alice(),
          proposalId: proposal.id,
          request: { decision: 'reject', payloadHash: proposal.payloadHash, reason: 'Not this order' },
        });
        return {
          ids: [proposal.id],
          expected: () => [
            [
              ['proposal.created', 'agent', agent()],
              ['proposal.rejected', 'user', alice()],
            ],
          ],
        };
      },
    ],
    [
      'create → extend → expire',
      async () => {
        const created = new Date(Date.now() - 60 * 60_000);
        const proposal = await refund(1400, created);
        await extendExpiry(t.db, { userId: alice(), proposalId: proposal.id }, new Date(created.getTime() + 60_000));
        // Twice the first 24 hours later, the sweep expires it.
        await expireOverdue(t.db, new Date(created.getTime() + 49 * 3_600_000));
        return {
          ids: [proposal.id],
          expected: () => [
            [
              ['proposal.created', 'agent', agent()],
              ['proposal.extended', 'user', alice()],
              ['proposal.expired', 'system', 'expiry'],
            ],
          ],
        };
      },
    ],
    [
      'create → revise (the parent is replaced, the revision created by the editor)',
      async () => {
        const parent = await refund(1500);
        const revision = await reviseProposal(t.db, systems.client, {
          reason: 'Edited in a test',
          userId: alice(),
          proposalId: parent.id,
          args: { orderId: 'ord_1842', amountMinor: 1000, currency: 'USD', reason: REFUND_REASON },
        });
        return {
          ids: [parent.id, revision.id],
          expected: () => [
            [
              ['proposal.created', 'agent', agent()],
              ['proposal.revised', 'user', alice()],
            ],
            [['proposal.created', 'user', alice()]],
          ],
        };
      },
    ],
  ])('%s', async (_path, walk) => {
    const { ids, expected } = await walk();
    const events = await Promise.all(ids.map(walked));
    expect(events).toEqual(expected());
  });
});

describe('every account, member, key and policy change leaves its event', () => {
  let counter = 0;

  /** The events a step appended to the tenant, as [type, actor type, actor id, reason code]. */
  async function appended(tenantId: string, step: () => Promise<unknown>): Promise<AuditEvent[]> {
    await chainPending(t.db, tenantId);
    const [head] = await t.db
      .select({ seq: auditEvents.seq })
      .from(auditEvents)
      .where(eq(auditEvents.tenantId, tenantId))
      .orderBy(desc(auditEvents.seq))
      .limit(1);
    await step();
    await chainPending(t.db, tenantId);
    return t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, tenantId), gt(auditEvents.seq, head?.seq ?? 0)))
      .orderBy(asc(auditEvents.seq));
  }

  it('walks a tenant through its administration, one event per change', async () => {
    counter += 1;
    const id = `walk-${counter}`;
    const password = 'the first long password';
    const created = await appended(id, () => createTenant(t.db, { id, name: 'Walk' }));
    const user = await createUser(t.db, { email: `walker${counter}@walk.test`, name: 'Walker', password });
    const spare = await createUser(t.db, { email: `spare${counter}@walk.test`, name: 'Spare', password });
    const SYSTEM = ['system', 'cli'] as const;
    const steps: [string, () => Promise<unknown>, [string, string, string, string | null][]][] = [
      [
        'grant a role',
        () => grantRole(t.db, { tenantId: id, email: user.email, role: 'approver' }),
        [['membership.granted', ...SYSTEM, 'approver']],
      ],
      [
        'change the role',
        () => grantRole(t.db, { tenantId: id, email: user.email, role: 'admin' }),
        [['membership.granted', ...SYSTEM, 'admin']],
      ],
      [
        'a second admin',
        () => grantRole(t.db, { tenantId: id, email: spare.email, role: 'admin' }),
        [['membership.granted', ...SYSTEM, 'admin']],
      ],
      [
        'issue an agent key',
        () => createAgentKey(t.db, { tenantId: id, agentName: 'walk-bot', actions: ['hold_stock'] }),
        [['agent_key.created', ...SYSTEM, null]],
      ],
      [
        'publish a policy',
        () =>
          publishPolicy(
            t.db,
            {
              tenantId: id,
              action: 'hold_stock',
              version: 1,
              rules: [
                {
                  id: 'one',
                  description: 'One approver',
                  when: null,
                  outcome: 'needs_approval',
                  approvals: 1,
                  role: 'approver',
                },
              ],
            },
            { type: 'user', id: user.id },
          ),
        [['policy.published', 'user', user.id, 'v1']],
      ],
      [
        'sign in',
        () => startSession(t.db, user.id, 'credentials'),
        [['auth.signed_in', 'user', user.id, 'credentials']],
      ],
      [
        'a wrong password',
        () => signInFailed(t.db, { email: user.email.toUpperCase(), address: '203.0.113.9' }),
        [['auth.sign_in_failed', 'system', 'sign-in', 'wrong_password']],
      ],
      [
        'an unknown email',
        () => signInFailed(t.db, { email: `nobody${counter}@walk.test`, address: '203.0.113.9' }),
        [],
      ],
      [
        'end sessions from the CLI',
        () => endSessionsOf(t.db, user.email),
        [['session.ended', ...SYSTEM, 'signed_out_everywhere']],
      ],
      [
        'a new password (ends the sessions it finds)',
        async () => {
          await startSession(t.db, user.id, 'oidc');
          await changePassword(t.db, user.email, 'the second long password');
        },
        [
          ['auth.signed_in', 'user', user.id, 'oidc'],
          ['auth.password_changed', ...SYSTEM, null],
          ['session.ended', ...SYSTEM, 'password_changed'],
        ],
      ],
      [
        'sign out',
        async () => {
          await endSession(t.db, await startSession(t.db, user.id, 'credentials'), 'signed_out');
        },
        [
          ['auth.signed_in', 'user', user.id, 'credentials'],
          ['session.ended', 'user', user.id, 'signed_out'],
        ],
      ],
      [
        'an idle session ends on its next use',
        async () => {
          const start = new Date(Date.now() - 2 * 3_600_000);
          const session = await startSession(t.db, user.id, 'credentials', start);
          expect(await sessionIsLive(t.db, session, user.id, new Date(), { maxHours: 12, idleMinutes: 30 })).toBe(
            false,
          );
          expect(await sessionIsLive(t.db, session, user.id, new Date(), { maxHours: 12, idleMinutes: 30 })).toBe(
            false,
          );
        },
        [
          ['auth.signed_in', 'user', user.id, 'credentials'],
          ['session.ended', 'system', 'session-timeout', 'idle'],
        ],
      ],
      [
        'revoke the agent key',
        async () => {
          const [row] = await t.db
            .select()
            .from(auditEvents)
            .where(and(eq(auditEvents.tenantId, id), eq(auditEvents.type, 'agent_key.created')));
          await revokeAgentKey(t.db, String(row!.data.key));
        },
        [['agent_key.revoked', ...SYSTEM, null]],
      ],
      [
        'remove the member',
        () => removeMember(t.db, { tenantId: id, email: spare.email }),
        [['membership.removed', ...SYSTEM, 'admin']],
      ],
    ];
    expect(created.map((row) => row.type)).toEqual(['tenant.created']);
    for (const [step, run, expected] of steps) {
      const rows = await appended(id, run);
      expect(
        rows.map((row) => [row.type, row.actorType, row.actorId, row.reasonCode]),
        step,
      ).toEqual(expected);
      for (const row of rows) {
        const text = JSON.stringify(row);
        expect(text, step).not.toContain(password);
        expect(text, step).not.toContain('long password');
        expect(text, step).not.toContain('@walk.test');
      }
    }
    // The role change says what it replaced.
    const grants = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, id), eq(auditEvents.type, 'membership.granted')));
    expect(grants.map((row) => row.data)).toEqual([
      { user: user.id, role: 'approver', previousRole: null },
      { user: user.id, role: 'admin', previousRole: 'approver' },
      { user: spare.id, role: 'admin', previousRole: null },
    ]);
  });

  it('records a sign-in in every tenant of the person, and an unknown email in none', async () => {
    counter += 1;
    const [a, b] = [`walk-${counter}-a`, `walk-${counter}-b`];
    for (const id of [a, b]) await createTenant(t.db, { id, name: id });
    const user = await createUser(t.db, {
      email: `both${counter}@walk.test`,
      name: 'Both',
      password: 'a long enough password',
    });
    for (const id of [a, b]) await grantRole(t.db, { tenantId: id, email: user.email, role: 'viewer' });
    await chainAllPending(t.db);
    const before = await t.db.select().from(auditEvents);
    const session = await startSession(t.db, user.id, 'credentials');
    const attempt = { email: `unknown${counter}@walk.test`, address: '198.51.100.7' };
    expect(await admitSignIn(t.db, attempt)).toEqual({ allowed: true });
    await signInFailed(t.db, attempt);
    await chainAllPending(t.db);
    const fresh = (await t.db.select().from(auditEvents)).filter(
      (row) => !before.some((old) => old.tenantId === row.tenantId && old.seq === row.seq),
    );
    expect(fresh.map((row) => [row.tenantId, row.type, row.data]).sort()).toEqual([
      [a, 'auth.signed_in', { user: user.id, session, method: 'credentials' }],
      [b, 'auth.signed_in', { user: user.id, session, method: 'credentials' }],
    ]);
  });
});
