import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SEEDED_ORDERS, SEEDED_REFUNDS, SEEDED_SKUS } from '@/demo/systems/world';
import { DEMO_AGENTS } from '@/demo/world';
import { findAction } from '@/lib/actions/registry';
import type { ActionModule, OpenClaims, Resolution } from '@/lib/actions/types';
import { definedAction } from '@/lib/definitions/module';
import { parseDefinition } from '@/lib/definitions/parse';
import { loadCorpus } from './format';

/**
 * Before the demo's actions become the definitions the demo seeds (issue 37), the definitions must
 * judge what the shipped modules judge. Every corpus case's arguments go through both: the same
 * verdict of the contract (every issue's field and code), and for arguments both accept, on the
 * seeded resource, the same authority and the same rule refused (or none) with the resource's
 * open proposals claiming nothing, some, or all of it.
 */

const declared = (name: string): ActionModule => {
  const parsed = parseDefinition(fs.readFileSync(`demo/actions/${name}.json`, 'utf8'));
  if (!parsed.ok) throw new Error(`demo/actions/${name}.json: ${JSON.stringify(parsed.problems)}`);
  return definedAction(parsed.definition, 1);
};

/** The seeded resource the arguments name, as the shipped resolvers read it, if it is the tenant's. */
function resolution(action: string, args: Record<string, unknown>, tenant: string): Resolution | undefined {
  if (action === 'issue_refund') {
    const order = SEEDED_ORDERS.find((each) => each.id === args.orderId && each.tenant === tenant);
    if (!order) return undefined;
    const refundedMinor = SEEDED_REFUNDS.filter((refund) => refund.orderId === order.id).reduce(
      (sum, refund) => sum + refund.amountMinor,
      0,
    );
    const facts = { currency: order.currency, chargedMinor: order.chargedMinor, refundedMinor };
    return { resourceKey: `order:${order.id}`, facts, detail: order.id };
  }
  const sku = SEEDED_SKUS.find((each) => each.sku === args.sku && each.tenant === tenant);
  if (!sku) return undefined;
  return { resourceKey: `sku:${sku.sku}`, facts: { warehouse: sku.warehouse, maxHold: sku.maxHold }, detail: sku.sku };
}

const verdict = (check: ReturnType<ActionModule['contracts'][number]['check']>) =>
  check.ok
    ? 'accepted'
    : check.issues
        .map((issue) => `${issue.field}:${issue.code}`)
        .sort()
        .join(', ');

const ruleCode = (action: ActionModule, args: Record<string, unknown>, found: Resolution, open: OpenClaims) => {
  const violation = action.checkRules(args, found, open);
  return violation ? (violation.ruleCode ?? violation.code) : 'none';
};

const suites = loadCorpus();

describe.each(suites.map((suite) => [`${suite.action} v${suite.version}`, suite] as const))(
  "the demo's definition of %s judges every corpus case as the shipped module does",
  (_label, suite) => {
    const shipped = findAction(suite.action)!;
    const defined = declared(suite.action);
    const cases = suite.cases.flatMap((each) => {
      const body = each.request as { args?: unknown } | undefined;
      return body !== null && typeof body === 'object' && 'args' in body ? [{ ...each, args: body.args }] : [];
    });

    it('has cases with arguments to compare', () => {
      expect(cases.length).toBeGreaterThan(10);
    });

    it.each(cases.map((each) => [each.name, each] as const))('%s', (_name, each) => {
      const contract = (action: ActionModule) => action.contracts.find((c) => c.version === suite.version)!;
      const [was, is] = [contract(shipped).check(each.args), contract(defined).check(each.args)];
      expect(verdict(is)).toBe(verdict(was));
      if (!was.ok || !is.ok) return;
      const agent = DEMO_AGENTS.find((candidate) => candidate.tenant === (each.agent ?? 'acme'))!;
      const found = resolution(suite.action, was.args, agent.tenant);
      if (!found) return;
      expect(defined.authorize(agent.grants, found)).toBe(shipped.authorize(agent.grants, found));
      const charged = Number(found.facts.chargedMinor ?? 0);
      for (const total of [0, 1000, charged])
        expect(ruleCode(defined, is.args, found, { count: 1, total })).toBe(
          ruleCode(shipped, was.args, found, { count: 1, total }),
        );
      expect(defined.risk(is.args)).toBe(shipped.risk(was.args));
    });
  },
);
