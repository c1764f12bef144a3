import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentKeys, decisions, proposals, type Role } from '@/db/schema';
import { initiatorsOf } from '@/lib/decisions/initiators';
import { viewerRights } from '@/lib/decisions/viewer-rights';
import { partWords, type QueueGroup, type ViewerPart } from '@/lib/shared/queue-view';
import { setupTestDatabase } from '@/test/db';
import { type PersonName, type SeededWorld, seedWorld } from '@/test/world';
import { decodeCursor } from './list-cursor';
import { parseQueueParams, pendingQueue, type QueueViewer } from './queue';

/**
 * The queue's groups as each person of the demo world sees them, against rows made to cover every
 * rule: the person the agent acts for, editors along a revision chain, an approval already given,
 * a rule that needs an admin, a viewer, one past its expiry, and other tenants' and decided rows.
 */
const t = setupTestDatabase();
let world: SeededWorld;

const HOUR = 3_600_000;
const ROLE: Record<PersonName, Role> = {
  alice: 'approver',
  bob: 'approver',
  carol: 'admin',
  dave: 'viewer',
  erin: 'approver',
};
const viewer = (person: PersonName): QueueViewer => ({ userId: world.userId(person), role: ROLE[person] });

type Row = {
  id: string;
  tenant?: string;
  status?: 'pending_approval' | 'approved' | 'cancelled';
  parent?: string;
  editor?: PersonName;
  key?: 'plain' | 'for_alice';
  role?: 'approver' | 'admin';
  approvals?: number;
  expired?: boolean;
  approvedBy?: PersonName[];
};

// q_chain2 ← q_chain1 (edited by bob) ← q_chain0 (by the agent): carol edited the newest revision.
const ROWS: Row[] = [
  { id: 'q_plain' },
  { id: 'q_for_alice', key: 'for_alice' },
  { id: 'q_chain0', status: 'cancelled' },
  { id: 'q_chain1', status: 'cancelled', parent: 'q_chain0', editor: 'bob' },
  { id: 'q_chain2', parent: 'q_chain1', editor: 'carol' },
  { id: 'q_two_alice', approvals: 2, approvedBy: ['alice'] },
  { id: 'q_admin', role: 'admin' },
  { id: 'q_expired', expired: true },
  { id: 'q_done', status: 'approved' },
  { id: 'q_globex', tenant: 'globex' },
];

beforeAll(async () => {
  world = await seedWorld(t.db);
  const now = Date.now();
  await t.db.insert(agentKeys).values([
    {
      id: 'key_plain',
      tenantId: 'acme',
      agentName: 'plain-bot',
      keyHash: 'h_plain',
      keyPrefix: 'p',
      allowedActions: ['hold_stock'],
    },
    {
      id: 'key_for_alice',
      tenantId: 'acme',
      agentName: 'alices-bot',
      keyHash: 'h_alice',
      keyPrefix: 'a',
      allowedActions: ['hold_stock'],
      onBehalfOfUserId: world.userId('alice'),
    },
    {
      id: 'key_globex',
      tenantId: 'globex',
      agentName: 'globex-plain',
      keyHash: 'h_globex',
      keyPrefix: 'g',
      allowedActions: ['hold_stock'],
    },
  ]);
  await t.db.insert(proposals).values(
    ROWS.map((row, i) => {
      const tenantId = row.tenant ?? 'acme';
      return {
        id: row.id,
        tenantId,
        agentKeyId: tenantId === 'globex' ? 'key_globex' : row.key === 'for_alice' ? 'key_for_alice' : 'key_plain',
        agentName: 'plain-bot',
        action: 'hold_stock',
        contractVersion: 1,
        status: row.status ?? 'pending_approval',
        payload: {
          action: 'hold_stock',
          contractVersion: 1,
          tenantId,
          args: { sku: 'filter-blue', quantity: 1 },
          evidenceRefs: [],
        },
        payloadHash: `sha256:${String(i).padStart(64, '0')}`,
        rawCandidate: '{}',
        gates: [],
        routing: {
          rule: 'fixture',
          policyVersion: 1,
          outcome: 'needs_approval' as const,
          approvals: row.approvals ?? 1,
          role: row.role ?? 'approver',
        },
        parentId: row.parent ?? null,
        initiatedByUserId: row.editor ? world.userId(row.editor) : null,
        evidence: [{ id: 'ticket_x', kind: 'support_ticket', text: `${'é'.repeat(300)}🙂` }],
        createdAt: new Date(now - (20 - i) * 60_000),
        expiresAt: new Date(row.expired ? now - HOUR : now + (10 + i) * HOUR),
      };
    }),
  );
  for (const row of ROWS) {
    for (const person of row.approvedBy ?? []) {
      await t.db.insert(decisions).values({
        id: `dec_${row.id}_${person}`,
        tenantId: 'acme',
        proposalId: row.id,
        userId: world.userId(person),
        decision: 'approve',
        payloadHash: 'x',
      });
    }
  }
});

const PENDING_ACME = ['q_plain', 'q_for_alice', 'q_chain2', 'q_two_alice', 'q_admin', 'q_expired'];

// Each person's part in each pending acme proposal: `decide` is the Needs you group.
const decide: ViewerPart = { kind: 'decide' };
const CASES: [PersonName, Record<string, ViewerPart>][] = [
  [
    'alice',
    {
      q_plain: decide,
      q_for_alice: { kind: 'initiator', how: 'on_behalf' },
      q_chain2: decide,
      q_two_alice: { kind: 'approved', more: 1 },
      q_admin: { kind: 'role', needs: 'admin' },
      q_expired: { kind: 'expired' },
    },
  ],
  [
    'bob',
    {
      q_plain: decide,
      q_for_alice: decide,
      q_chain2: { kind: 'initiator', how: 'edited' },
      q_two_alice: decide,
      q_admin: { kind: 'role', needs: 'admin' },
      q_expired: { kind: 'expired' },
    },
  ],
  [
    'carol',
    {
      q_plain: decide,
      q_for_alice: decide,
      q_chain2: { kind: 'initiator', how: 'edited' },
      q_two_alice: decide,
      q_admin: decide,
      q_expired: { kind: 'expired' },
    },
  ],
  [
    'dave',
    Object.fromEntries(
      PENDING_ACME.map((id) => [id, { kind: 'role', needs: id === 'q_admin' ? 'admin' : 'approver' }]),
    ),
  ],
];

async function groupIds(person: PersonName, group: QueueGroup): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<typeof pendingQueue>> = await pendingQueue(
      t.db,
      'acme',
      viewer(person),
      { group, sort: 'oldest' },
      decodeCursor(cursor),
    );
    ids.push(...page.items.map((item) => item.id));
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

describe('queue groups', () => {
  it.each(CASES)('%s: every pending proposal in the right group, with its part in words', async (person, parts) => {
    const needs = PENDING_ACME.filter((id) => parts[id]!.kind === 'decide');
    const waiting = PENDING_ACME.filter((id) => parts[id]!.kind !== 'decide');
    expect(await groupIds(person, 'needs-you')).toEqual(needs);
    expect(await groupIds(person, 'waiting')).toEqual(waiting);
    expect(await groupIds(person, 'all')).toEqual(PENDING_ACME);
    const page = await pendingQueue(t.db, 'acme', viewer(person), { group: 'all', sort: 'oldest' });
    expect(page.counts).toEqual({ 'needs-you': needs.length, waiting: waiting.length, all: PENDING_ACME.length });
    expect(Object.fromEntries(page.items.map((item) => [item.id, item.mine]))).toEqual(parts);
  });

  it('words each part', () => {
    const words: [ViewerPart, string][] = [
      [{ kind: 'approved', more: 1 }, 'You approved · 1 more needed'],
      [{ kind: 'initiator', how: 'edited' }, 'You edited it · someone else approves'],
      [{ kind: 'initiator', how: 'on_behalf' }, 'Proposed on your behalf · someone else approves'],
      [{ kind: 'role', needs: 'admin' }, 'Needs an admin'],
      [{ kind: 'role', needs: 'approver' }, 'Needs an approver'],
    ];
    for (const [part, text] of words) expect(partWords(part)).toBe(text);
  });

  it('agrees with the decision rules (viewerRights: what decide() enforces) on who may approve now', async () => {
    const now = new Date();
    const rows = await t.db.select().from(proposals).where(sql`${proposals.id} in ${PENDING_ACME}`);
    for (const [person] of CASES) {
      const needs = new Set(await groupIds(person, 'needs-you'));
      for (const row of rows) {
        const made = await t.db
          .select({ userId: decisions.userId })
          .from(decisions)
          .where(sql`${decisions.proposalId} = ${row.id}`);
        const rights = viewerRights(row, made, viewer(person), await initiatorsOf(t.db, row), now);
        expect(needs.has(row.id), `${person} ${row.id}`).toBe(rights.canApprove);
      }
    }
  });

  it("shows another tenant's member only their own tenant's proposals", async () => {
    const page = await pendingQueue(t.db, 'globex', viewer('erin'), { group: 'all', sort: 'oldest' });
    expect(page.items.map((item) => item.id)).toEqual(['q_globex']);
    expect(page.counts).toEqual({ 'needs-you': 1, waiting: 0, all: 1 });
    expect(
      (await pendingQueue(t.db, 'acme', viewer('erin'), { group: 'all', sort: 'oldest' })).items.map((item) => item.id),
    ).not.toContain('q_globex');
  });

  it('carries what the preview needs: arguments with hints, and evidence cut to 280 characters on the server', async () => {
    const [item] = (await pendingQueue(t.db, 'acme', viewer('alice'), { group: 'needs-you', sort: 'oldest' })).items;
    expect(item).toMatchObject({
      id: 'q_plain',
      reason: null,
      role: 'approver',
      args: [
        { name: 'sku', value: 'filter-blue', hint: null },
        { name: 'quantity', value: '1', hint: null },
      ],
    });
    expect(item!.evidence).toEqual([
      { id: 'ticket_x', kind: 'support_ticket', excerpt: 'é'.repeat(280), truncated: true },
    ]);
  });
});

describe('the group parameter', () => {
  const cases: [string, { ok: true; group: QueueGroup } | { ok: false; message: RegExp }][] = [
    ['', { ok: true, group: 'needs-you' }],
    ['group=needs-you', { ok: true, group: 'needs-you' }],
    ['group=waiting', { ok: true, group: 'waiting' }],
    ['group=all', { ok: true, group: 'all' }],
    ['group=mine', { ok: false, message: /group must be one of needs-you, waiting, all; got "mine"/ }],
    ['group=', { ok: false, message: /group must be one of needs-you, waiting, all; got ""/ }],
    ['group=all&group=waiting', { ok: false, message: /group is given more than once/ }],
  ];
  it.each(cases)('?%s', (search, expected) => {
    const parsed = parseQueueParams(new URLSearchParams(search));
    if (expected.ok) expect(parsed).toMatchObject({ ok: true, params: { group: expected.group } });
    else {
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.messages.join(' ')).toMatch(expected.message);
    }
  });
});
