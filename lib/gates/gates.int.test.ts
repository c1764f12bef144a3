import { describe, expect, it } from 'vitest';
import type { Proposal } from '@/db/schema';
import { findAction } from '@/lib/actions/registry';
import type { ActionModule } from '@/lib/actions/types';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { decide } from '@/lib/decisions/decide';
import { openClaimsBesides } from '@/lib/gates/claims';
import { admitShaped } from '@/lib/intake/admit';
import type { RoutingRule } from '@/lib/routing-rules';
import { setupTestDatabase } from '@/test/db';
import { expectApiError } from '@/test/errors';
import { submitAs } from '@/test/intake';
import { auditRowsFor, proposalRow } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';
import { meaningGate } from './meaning';
import { rulesGate } from './rules';

/**
 * The gate modules as the pipeline runs them (docs/design.md §1: Meaning, Authority, the rules, Routing)
 * and as the decision-time check runs them again (§6): one code path, one verdict.
 */
const t = setupTestDatabase();
const systems = setupDemoSystems();

const seeded = seededWorld(t);
let sequence = 0;

const base = (name: string): ActionModule => {
  const action = findAction(name);
  if (!action) throw new Error(`no action ${name}`);
  return action;
};

const needsOne: RoutingRule = {
  id: 'one',
  description: 'One approver',
  when: null,
  outcome: 'needs_approval',
  approvals: 1,
  role: 'approver',
};
const denyAll: RoutingRule = {
  id: 'nobody',
  description: 'Nobody',
  when: null,
  outcome: 'deny',
  approvals: 0,
  role: 'admin',
};

/**
 * A built-in action under another name (so no stored policy applies and `rules` route it) that
 * writes down which gate consulted it, in order.
 */
function recorded(
  name: string,
  log: string[],
  rules: RoutingRule[],
  overrides: Partial<ActionModule> = {},
): ActionModule {
  const action = base(name);
  return {
    ...action,
    name: `recorded_${name}`,
    defaultRules: rules,
    async resolve(client, tenantId, args) {
      log.push('meaning');
      return action.resolve(client, tenantId, args);
    },
    authorize(grants, resolution) {
      log.push('authority');
      return action.authorize(grants, resolution);
    },
    checkRules(args, resolution, open) {
      log.push('rules');
      return action.checkRules(args, resolution, open);
    },
    ...overrides,
  };
}

function admit(action: ActionModule, args: Record<string, unknown>, agent: AgentPrincipal = seeded.acme) {
  const contract = action.contracts[0]!;
  return admitShaped(
    t.db,
    systems.client,
    {
      agent,
      action,
      contract,
      args,
      evidenceRefs: [],
      requestId: `req_gates_${++sequence}`,
      repairOf: null,
      rawText: JSON.stringify(args),
    },
    new Date(),
  );
}

describe('the pipeline runs the gates in docs/design.md order', () => {
  it('Meaning, Authority, the rules, then Routing; all pass and the proposal is routed', async () => {
    const log: string[] = [];
    const { proposal, created } = await admit(recorded('hold_stock', log, [needsOne]), {
      sku: 'filter-blue',
      quantity: 1,
    });
    expect(created).toBe(true);
    expect(log).toEqual(['meaning', 'authority', 'rules']);
    expect(proposal.routing).toMatchObject({ rule: 'one', outcome: 'needs_approval' });
    expect(proposal.gates.map((gate) => gate.gate)).toEqual(['shape', 'meaning', 'authority', 'routing']);
  });

  it('a missing resource stops at Meaning: nothing else is asked', async () => {
    const log: string[] = [];
    await expectApiError(admit(recorded('hold_stock', log, [needsOne]), { sku: 'no-such-sku', quantity: 1 }), {
      status: 403,
      code: 'not_authorized',
    });
    expect(log).toEqual(['meaning']);
  });

  it('an out-of-scope resource stops at Authority, before the rules (its limits stay unrevealed)', async () => {
    const log: string[] = [];
    const outside = { ...seeded.acme, grants: { warehouses: ['nowhere'] } };
    // Over the hold limit as well: the answer is still Authority's.
    await expectApiError(admit(recorded('hold_stock', log, [needsOne]), { sku: 'filter-gray', quantity: 4 }, outside), {
      status: 403,
      code: 'not_authorized',
    });
    expect(log).toEqual(['meaning', 'authority']);
  });

  it('the rules answer before Routing: over the limit and denied by policy is the rule violation', async () => {
    const log: string[] = [];
    await expectApiError(admit(recorded('hold_stock', log, [denyAll]), { sku: 'filter-gray', quantity: 4 }), {
      status: 422,
      code: 'hold_limit',
    });
    expect(log).toEqual(['meaning', 'authority', 'rules']);
  });

  it('Routing runs last: everything else passes, and the policy denies', async () => {
    const log: string[] = [];
    await expectApiError(admit(recorded('hold_stock', log, [denyAll]), { sku: 'filter-blue', quantity: 1 }), {
      status: 403,
      code: 'denied_by_policy',
    });
    expect(log).toEqual(['meaning', 'authority', 'rules']);
  });
});

describe('the decision-time check runs the same gates as intake', () => {
  const refund = (amountMinor: number) => ({
    orderId: 'ord_1842',
    amountMinor,
    currency: 'USD',
    reason: 'Customer requested a refund',
  });

  it('the same live state gives the same rule verdict at intake and at decision time', async () => {
    const submitted = await submitAs(t.db, systems.client, seeded.acme, {
      requestId: `req_gates_${++sequence}`,
      action: 'issue_refund',
      contractVersion: 1,
      args: refund(3000),
    });
    const first: Proposal = submitted.proposal;
    expect(first.status).toBe('pending_approval');
    // Another open claim on the same order that was never held to the rules: together they
    // exceed the order's 49.99 USD.
    const lenient = recorded('issue_refund', [], [needsOne], { checkRules: () => undefined });
    const { proposal: overClaim } = await admit(lenient, refund(3000));
    expect(overClaim.resourceKey).toBe(first.resourceKey);

    // Intake, now: the rules gate refuses.
    const intake = await expectApiError(
      submitAs(t.db, systems.client, seeded.acme, {
        requestId: `req_gates_${++sequence}`,
        action: 'issue_refund',
        contractVersion: 1,
        args: refund(1),
      }),
      { status: 422, kind: 'business_rule', code: 'exceeds_refundable_balance' },
    );
    expect(intake.message).toMatch(/^At most 0\.00 USD can be refunded/);

    // The decision-time check: the same gate, the same code, its message in the stale reason.
    const action = base('issue_refund');
    const subject = { tenantId: first.tenantId, action, args: refund(3000) };
    const meant = await meaningGate(subject, { systems: systems.client, evidenceRefs: [] });
    if (!meant.ok) throw new Error('the order resolves');
    const verdict = await rulesGate(subject, {
      resolution: meant.value.resolution,
      open: await openClaimsBesides(t.db, first),
    });
    expect(verdict).toMatchObject({ ok: false, refusal: { gate: 'rules', code: 'exceeds_refundable_balance' } });
    if (verdict.ok) throw new Error('refused above');

    await expectApiError(
      decide(t.db, systems.client, {
        userId: seeded.world.userId('bob'),
        proposalId: first.id,
        request: { decision: 'approve', payloadHash: first.payloadHash },
      }),
      {
        status: 409,
        code: 'stale',
      },
    );
    const row = await proposalRow(t.db, first.id);
    expect(row.status).toBe('stale');
    expect(row.statusReason).toBe(`${verdict.refusal.message.replace(/\.$/, '')} (checked again against live state)`);
    expect((await auditRowsFor(t.db, first.id)).at(-1)).toMatchObject({
      type: 'proposal.stale',
      reasonCode: 'exceeds_refundable_balance',
    });
  });
});
