/**
 * An approval counts only while its approver may approve (docs/design.md §6), by class: each way a
 * role can drop (approver→viewer, admin→approver under an admin rule, removal), a role raised, a
 * re-promotion, proposals already approved or executed, the executor's and minting's re-checks, and
 * a property over generated sequences of approvals and role changes.
 */
import { and, eq } from 'drizzle-orm';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { commands, decisions, type Proposal, type Role } from '@/db/schema';
import { PLAN_ORDERS, QUEUE_FIFTY_ORDERS } from '@/demo/systems/world';
import { changeRole, grantMembership, removeMembership } from '@/lib/admin/members';
import { buildEvidenceBundle } from '@/lib/audit/bundle';
import { verifyBundle } from '@/lib/audit/bundle-verify';
import { decisionsPage } from '@/lib/audit/history';
import { mintCommand, QuorumLapsed } from '@/lib/commands/mint';
import { decide } from '@/lib/decisions/decide';
import { Refusal } from '@/lib/errors/refusal';
import { standingApprovers } from '@/lib/quorum/quorum';
import { commandKeys } from '@/lib/signing/keys';
import { setupCommandWorld } from '@/test/fixtures/commands';
import { HOLDS_ONE_APPROVER, publishNextRules } from '@/test/fixtures/policies';
import { auditRowsFor, proposalRow } from '@/test/queries';
import type { PersonName } from '@/test/world';

const w = setupCommandWorld();
const { t } = w;
const CAROL = () => ({ type: 'user' as const, id: w.world.userId('carol') });

/**
 * EUR orders of 300.00 each; a refund of over 100.00 needs two approvers, and each test's refunds get an order of their
 * own.
 */
const ORDERS = [...QUEUE_FIFTY_ORDERS, ...PLAN_ORDERS];
let nextOrder = 0;
const orderFor = () => ORDERS[nextOrder++ % ORDERS.length]!;
const refund = (amountMinor = 15_000, orderId = orderFor()) =>
  w.propose('issue_refund', { orderId, amountMinor, currency: 'EUR', reason: 'Damaged on arrival' });
const approve = (person: PersonName, proposal: Proposal) =>
  decide(t.db, w.systems.client, {
    userId: w.world.userId(person),
    proposalId: proposal.id,
    request: { decision: 'approve', payloadHash: proposal.payloadHash },
  });
const setRole = (person: PersonName, role: Role) =>
  changeRole(t.db, { tenantId: 'acme', userId: w.world.userId(person), role, actor: CAROL() });
const withdrawals = async (proposalId: string) =>
  (await auditRowsFor(t.db, proposalId)).filter((row) => row.type === 'proposal.approval_withdrawn');
const commandsOf = (proposalId: string) => t.db.select().from(commands).where(eq(commands.proposalId, proposalId));

beforeAll(async () => {
  // Stock holds of more than 3 need two admins (alice and bob are made admins where a test needs it).
  await publishNextRules(t.db, 'acme', 'hold_stock', [
    {
      id: 'big-holds-two-admins',
      description: 'Holds above 3 need two admins',
      when: { field: 'quantity', above: 3 },
      outcome: 'needs_approval',
      approvals: 2,
      role: 'admin',
    },
    HOLDS_ONE_APPROVER,
  ]);
});

async function resetRoles() {
  for (const person of ['alice', 'bob'] as const) {
    const userId = w.world.userId(person);
    await t.db.transaction((tx) => grantMembership(tx, { tenantId: 'acme', userId, role: 'approver', actor: CAROL() }));
  }
}

describe('a role that drops withdraws the approvals its new role no longer meets', () => {
  it('admin→approver under an admin rule: withdrawn there, kept on an approver rule; the quorum needs another admin', async () => {
    await resetRoles();
    await setRole('alice', 'admin');
    await setRole('bob', 'admin');
    const adminHold = await w.propose('hold_stock', { sku: 'filter-blue', quantity: 4 });
    expect(adminHold.routing).toMatchObject({ approvals: 2, role: 'admin' });
    const approverRefund = await refund();
    await approve('alice', adminHold);
    await approve('alice', approverRefund);

    await setRole('alice', 'approver');
    expect((await withdrawals(adminHold.id)).map((row) => row.data)).toEqual([
      { user: w.world.userId('alice'), name: 'Alice', role: 'approver', approvals: 0, required: 2 },
    ]);
    expect(await withdrawals(approverRefund.id)).toEqual([]);

    expect((await approve('bob', adminHold)).status).toBe('pending_approval');
    expect((await approve('carol', adminHold)).status).toBe('approved');
    expect((await approve('bob', approverRefund)).status).toBe('approved');
    await resetRoles();
  });

  it('a role raised withdraws nothing', async () => {
    await resetRoles();
    const proposal = await refund();
    await approve('bob', proposal);
    await setRole('bob', 'admin');
    expect(await withdrawals(proposal.id)).toEqual([]);
    expect(await standingApprovers(t.db, proposal, { lock: false })).toEqual([w.world.userId('bob')]);
    await resetRoles();
  });

  it('a re-promotion does not restore a withdrawn approval', async () => {
    await resetRoles();
    const proposal = await refund();
    await approve('bob', proposal);
    await setRole('bob', 'viewer');
    await setRole('bob', 'approver');
    expect(await standingApprovers(t.db, proposal, { lock: false })).toEqual([]);
    const [row] = await t.db.select().from(decisions).where(eq(decisions.proposalId, proposal.id));
    expect(row).toMatchObject({ withdrawnReason: 'role_changed', withdrawnRole: 'viewer' });
    expect((await approve('alice', proposal)).status).toBe('pending_approval');
  });

  it('removal withdraws from every waiting proposal of that tenant, and only those', async () => {
    await resetRoles();
    const first = await refund();
    const second = await refund(12_000);
    await approve('bob', first);
    await approve('bob', second);
    await removeMembership(t.db, { tenantId: 'acme', userId: w.world.userId('bob'), actor: CAROL() });
    for (const proposal of [first, second]) {
      expect((await withdrawals(proposal.id)).map((row) => row.reasonCode)).toEqual(['removed']);
    }
    await resetRoles();
  });
});

describe('an evidence bundle and History tell a withdrawn approval and never count it', () => {
  it('Bob approves, is demoted to viewer, Alice and Carol approve: "approved by Bob — withdrawn: role changed to viewer", 2 of 2 counted; History marks Bob withdrawn', async () => {
    await resetRoles();
    const proposal = await refund();
    await approve('bob', proposal);
    await setRole('bob', 'viewer');
    expect((await approve('alice', proposal)).status).toBe('pending_approval');
    expect((await approve('carol', proposal)).status).toBe('approved');
    const keys = await commandKeys();
    const bundle = (await buildEvidenceBundle(t.db, 'acme', proposal.id, keys))!;
    const withdrawal = bundle.events.find((row) => row.type === 'proposal.approval_withdrawn')!;
    expect(bundle.decisions.map((decision) => [decision.name, decision.withdrawnAt !== null])).toEqual([
      ['Bob', true],
      ['Alice', false],
      ['Carol', false],
    ]);
    const report = await verifyBundle(bundle, keys.jwks);
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
    expect(report.verified).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(
            `^approved by Bob \\(${w.world.userId('bob')}\\) at .* — withdrawn: role changed to viewer ` +
              `at ${withdrawal.occurredAt} \\(event #${withdrawal.seq}\\), not counted$`,
          ),
        ),
        'approvals counted: 2 of 2 required (withdrawn ones never count)',
      ]),
    );
    // The bundle claiming the approval still stands (or the withdrawal event left out) fails.
    const standing = { ...bundle, decisions: bundle.decisions.map((decision) => ({ ...decision, withdrawnAt: null })) };
    expect(
      (await verifyBundle(standing, keys.jwks)).checks.filter((check) => !check.ok).map((check) => check.check),
    ).toEqual(['decisions']);
    const hidden = { ...bundle, events: bundle.events.filter((row) => row !== withdrawal) };
    expect(
      (await verifyBundle(hidden, keys.jwks)).checks.filter((check) => !check.ok).map((check) => check.check),
    ).toEqual(['decisions']);
    // History's Decisions view: Bob is listed as withdrawn, never as one who approved.
    const row = (await decisionsPage(t.db, 'acme', { q: proposal.id })).items.find((item) => item.id === proposal.id);
    expect(row?.deciders).toEqual([
      { name: 'Bob', decision: 'approve', withdrawn: true },
      { name: 'Alice', decision: 'approve', withdrawn: false },
      { name: 'Carol', decision: 'approve', withdrawn: false },
    ]);
    await resetRoles();
  });
});

describe('proposals past waiting are not touched; the executor and minting count again', () => {
  it('approved, then an approver demoted: the approval stays as recorded, and the executor refuses (quorum_lapsed), writing nothing', async () => {
    await resetRoles();
    const orderId = orderFor();
    const proposal = await refund(13_000, orderId);
    await approve('alice', proposal);
    await approve('bob', proposal);
    const [command] = await commandsOf(proposal.id);
    await setRole('bob', 'viewer');
    expect(await withdrawals(proposal.id)).toEqual([]);
    expect(await w.execute(command!.jws)).toMatchObject({ status: 'failed', errorCode: 'quorum_lapsed' });
    expect(await w.orderRefunds(orderId)).toEqual([]);
    expect(await proposalRow(t.db, proposal.id)).toMatchObject({
      status: 'failed',
      statusReason: expect.stringMatching(/Only 1 of the 2 approvers/),
    });
    await resetRoles();
  });

  it('executed, then an approver removed: nothing changes', async () => {
    await resetRoles();
    const proposal = await refund(11_000);
    await approve('alice', proposal);
    await approve('bob', proposal);
    const [command] = await commandsOf(proposal.id);
    expect(await w.execute(command!.jws)).toMatchObject({ status: 'succeeded' });
    const before = await auditRowsFor(t.db, proposal.id);
    await removeMembership(t.db, { tenantId: 'acme', userId: w.world.userId('bob'), actor: CAROL() });
    expect(await auditRowsFor(t.db, proposal.id)).toEqual(before);
    expect((await proposalRow(t.db, proposal.id)).status).toBe('succeeded');
    await resetRoles();
  });

  it('minting refuses a proposal whose current approvers do not meet its rule', async () => {
    await resetRoles();
    const proposal = await refund();
    await approve('alice', proposal);
    await expect(t.db.transaction((tx) => mintCommand(tx, proposal, new Date()))).rejects.toBeInstanceOf(QuorumLapsed);
    expect(await commandsOf(proposal.id)).toEqual([]);
  });
});

/** One step of a generated story: someone approves, or someone's role changes, or they are removed and re-added. */
type Step =
  | { kind: 'approve'; who: PersonName }
  | { kind: 'role'; who: PersonName; role: Role }
  | { kind: 'remove'; who: PersonName };
const PEOPLE = ['alice', 'bob', 'dave'] as const;
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('approve' as const), who: fc.constantFrom(...PEOPLE) }),
  fc.record({
    kind: fc.constant('role' as const),
    who: fc.constantFrom(...PEOPLE),
    role: fc.constantFrom<Role>('viewer', 'approver', 'admin'),
  }),
  fc.record({ kind: fc.constant('remove' as const), who: fc.constantFrom(...PEOPLE) }),
);

async function run(proposal: Proposal, s: Step) {
  const userId = w.world.userId(s.who);
  try {
    if (s.kind === 'approve') await approve(s.who, proposal);
    else if (s.kind === 'role')
      await setRole(s.who, s.role).catch(async (error: unknown) => {
        // Removed earlier in this story: join again with the role.
        if (!(error instanceof Error) || !/not a member/.test(error.message)) throw error;
        await t.db.transaction((tx) => grantMembership(tx, { tenantId: 'acme', userId, role: s.role, actor: CAROL() }));
      });
    else
      await removeMembership(t.db, { tenantId: 'acme', userId, actor: CAROL() }).catch((error: unknown) => {
        if (!(error instanceof Error) || !/not a member/.test(error.message)) throw error;
      });
  } catch (error) {
    // A refused decision (forbidden role, not a member, already decided) is part of the story.
    if (!(error instanceof Refusal)) throw error;
  }
}

describe('property: a command exists only if, when it was minted, enough distinct current holders of the role approved', () => {
  it('holds for generated sequences of approvals and role changes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        await resetRoles();
        await t.db.transaction((tx) =>
          grantMembership(tx, { tenantId: 'acme', userId: w.world.userId('dave'), role: 'viewer', actor: CAROL() }),
        );
        const proposal = await refund(10_500);
        for (const s of steps) {
          const hadCommand = (await commandsOf(proposal.id)).length > 0;
          await run(proposal, s);
          const minted = !hadCommand && (await commandsOf(proposal.id)).length > 0;
          // Minted by this step: the state now is the state it was minted in.
          if (minted)
            expect((await standingApprovers(t.db, proposal, { lock: false })).length).toBeGreaterThanOrEqual(2);
          const row = await proposalRow(t.db, proposal.id);
          expect((await commandsOf(proposal.id)).length > 0).toBe(row.status !== 'pending_approval');
          // No approval of a waiting proposal stands for someone who may not approve it.
          if (row.status === 'pending_approval') {
            const approvals = await t.db
              .select()
              .from(decisions)
              .where(and(eq(decisions.proposalId, proposal.id), eq(decisions.decision, 'approve')));
            const counted = await standingApprovers(t.db, proposal, { lock: false });
            const withdrawn = approvals.filter((d) => d.withdrawnAt);
            expect(counted.length + withdrawn.length).toBe(approvals.length);
            expect(await withdrawals(proposal.id)).toHaveLength(withdrawn.length);
          }
        }
        // Carol (never an approver in the story) ends it, so its refund claims no balance any more.
        await decide(t.db, w.systems.client, {
          userId: w.world.userId('carol'),
          proposalId: proposal.id,
          request: { decision: 'reject', payloadHash: proposal.payloadHash, reason: 'story over' },
        });
      }),
      { numRuns: 25 },
    );
    await resetRoles();
  });
});
