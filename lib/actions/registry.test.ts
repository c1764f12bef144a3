import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { holdStock } from './hold_stock';
import { holdStockArgsV1, holdStockArgsV2 } from './hold_stock/contract';
import { issueRefund } from './issue_refund';
import { issueRefundArgsV1 } from './issue_refund/contract';
import { acceptedVersions, allActions, findContract } from './registry';
import type { ActionModule, ArgsOfContracts, ContractStatus } from './types';
import { zodContract } from './zod-contract';

const args = z.strictObject({});
const versions = (statuses: ContractStatus[]) => statuses.map((status, index) => zodContract(index + 1, status, args));

describe('contract version statuses', () => {
  const action = {
    contracts: versions(['retired', 'supported', 'current', 'shadow']),
  } as Pick<ActionModule, 'contracts'> as ActionModule;

  it('accepts current and supported versions only: retired and shadow are refused', () => {
    expect(acceptedVersions(action)).toEqual([2, 3]);
  });

  it('still finds every version (shadow ones are evaluated, retired ones named in errors)', () => {
    expect([1, 2, 3, 4, 5].map((version) => findContract(action, version)?.status)).toEqual([
      'retired',
      'supported',
      'current',
      'shadow',
      undefined,
    ]);
  });

  it('gives every registered action exactly one current version and a scope', () => {
    for (const registered of allActions()) {
      expect(
        registered.contracts.filter((contract) => contract.status === 'current'),
        registered.name,
      ).toHaveLength(1);
      expect(registered.scope).toMatch(/^[a-z]+$/);
    }
  });
});

describe('an action is typed by its contract versions', () => {
  it('hands each action the arguments its versions output, without a cast', () => {
    // Checked by the type checker: a module whose methods took v1's shape while v2 outputs another would not compile.
    expectTypeOf<Parameters<typeof holdStock.summarize>[0]>().toEqualTypeOf<
      z.output<typeof holdStockArgsV1> | z.output<typeof holdStockArgsV2>
    >();
    expectTypeOf<Parameters<typeof issueRefund.execute>[0]['args']>().toEqualTypeOf<
      z.output<typeof issueRefundArgsV1>
    >();
    expectTypeOf<ArgsOfContracts<[ReturnType<typeof zodContract<z.output<typeof holdStockArgsV1>>>]>>().toEqualTypeOf<{
      sku: string;
      quantity: number;
    }>();
    expect(holdStock.contracts.map((contract) => contract.zod)).toEqual([holdStockArgsV1, holdStockArgsV2]);
  });
});
