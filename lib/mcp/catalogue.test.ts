import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { allActions } from '@/lib/actions/registry';
import type { ActionModule, ContractStatus } from '@/lib/actions/types';
import { zodContract } from '@/lib/actions/zod-contract';
import { actionOfTool, envelopeOf, proposalTool, proposalTools } from './catalogue';

const withContracts = (
  name: string,
  contracts: { version: number; status: ContractStatus; args: z.ZodType<Record<string, unknown>> }[],
) =>
  ({
    ...allActions()[0]!,
    name,
    title: name,
    contracts: contracts.map(({ version, status, args }) => zodContract(version, status, args)),
  }) as ActionModule;

describe('proposal tools', () => {
  it('every built-in action has a tool at its current version whose input is the contract plus the envelope fields, closed', () => {
    for (const action of allActions()) {
      const tool = proposalTool(action)!;
      const current = action.contracts.find((c) => c.status === 'current')!;
      const contract = current.inputSchema as {
        properties: Record<string, unknown>;
        required: string[];
      };
      expect(tool).toMatchObject({
        name: `propose_${action.name}`,
        action: action.name,
        contractVersion: current.version,
      });
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.inputSchema.properties).toMatchObject(contract.properties);
      expect(Object.keys(tool.inputSchema.properties!).sort()).toEqual(
        [...Object.keys(contract.properties), 'evidenceRefs', 'repairOf', 'requestId'].sort(),
      );
      expect(tool.inputSchema.required).toEqual([...contract.required, 'requestId']);
      expect(tool.inputSchema).not.toHaveProperty('$schema');
      expect(tool.outputSchema).toMatchObject({
        type: 'object',
        additionalProperties: false,
        required: ['proposalId', 'status', 'payloadHash', 'reviewUrl'],
      });
    }
  });

  it.each([
    ['an action the key may not use', ['hold_stock'], ['propose_hold_stock']],
    ['no actions', [], []],
    ['both', ['issue_refund', 'hold_stock'], ['propose_hold_stock', 'propose_issue_refund']],
  ])('lists only allowed actions: %s', (_label, allowedActions, names) => {
    expect(proposalTools(allActions(), { allowedActions }).map((tool) => tool.name)).toEqual(names);
  });

  it('has no tool for an action without a current version (a tenant retired or shadowed them all)', () => {
    const shadowOnly = withContracts('shadow_only', [
      { version: 1, status: 'shadow', args: z.strictObject({ a: z.string() }) },
    ]);
    expect(proposalTools([shadowOnly], { allowedActions: ['shadow_only'] })).toEqual([]);
  });

  it.each(['requestId', 'evidenceRefs', 'repairOf'])(
    'refuses to flatten a contract with an argument named %s (the mapping would be ambiguous)',
    (name) => {
      const clashing = withContracts('clashing', [
        { version: 1, status: 'current', args: z.strictObject({ [name]: z.string() }) },
      ]);
      expect(() => proposalTool(clashing)).toThrow(`argument named "${name}"`);
    },
  );

  it.each([
    ['propose_hold_stock', 'hold_stock'],
    ['get_proposal_status', undefined],
    ['hold_stock', undefined],
  ])('the action of tool %s is %s', (name, action) => {
    expect(actionOfTool(name)).toBe(action);
  });
});

describe('the envelope a tool call becomes', () => {
  const tool = { action: 'hold_stock', contractVersion: 1 };
  it.each([
    [
      'envelope fields go to the envelope, the rest to args, untouched',
      { requestId: 'req_1', evidenceRefs: ['t_1'], repairOf: 'req_0', sku: ' filter-blue ', quantity: '2' },
      {
        requestId: 'req_1',
        evidenceRefs: ['t_1'],
        repairOf: 'req_0',
        action: 'hold_stock',
        contractVersion: 1,
        args: { sku: ' filter-blue ', quantity: '2' },
      },
    ],
    [
      'fields naming the action, version or tenant are arguments (so the contract refuses them), never the envelope',
      { requestId: 'r', action: 'issue_refund', contractVersion: 2, tenantId: 'globex', args: { x: 1 } },
      {
        requestId: 'r',
        action: 'hold_stock',
        contractVersion: 1,
        args: { action: 'issue_refund', contractVersion: 2, tenantId: 'globex', args: { x: 1 } },
      },
    ],
    [
      'absent envelope fields stay absent (intake applies defaults and names what is missing)',
      { sku: 'a' },
      { action: 'hold_stock', contractVersion: 1, args: { sku: 'a' } },
    ],
    [
      'wrongly typed envelope fields are passed as they came',
      { requestId: 7, evidenceRefs: 'x' },
      { requestId: 7, evidenceRefs: 'x', action: 'hold_stock', contractVersion: 1, args: {} },
    ],
  ])('%s', (_label, input, envelope) => {
    expect(envelopeOf(tool, input)).toStrictEqual(envelope);
  });

  it('a "__proto__" key stays an own argument and reaches no prototype', () => {
    const input = JSON.parse('{"requestId":"r","__proto__":{"polluted":true}}') as Record<string, unknown>;
    const { args } = envelopeOf(tool, input) as { args: Record<string, unknown> };
    expect(Object.keys(args)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
  });
});
