import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { acceptedVersions, allActions, findContract } from './registry';
import type { ActionModule } from './types';

const args = z.strictObject({});

describe('contract version statuses', () => {
  const action = {
    contracts: [
      { version: 1, status: 'retired', args },
      { version: 2, status: 'supported', args },
      { version: 3, status: 'current', args },
      { version: 4, status: 'shadow', args },
    ],
  } as Pick<ActionModule, 'contracts'> as ActionModule;

  it('accepts current and supported versions only: retired and shadow are refused', () => {
    expect(acceptedVersions(action)).toEqual([2, 3]);
  });

  it('still finds every version (shadow ones are evaluated, retired ones named in errors)', () => {
    expect([1, 2, 3, 4, 5].map((version) => findContract(action, version)?.status)).toEqual(['retired', 'supported', 'current', 'shadow', undefined]);
  });

  it('gives every registered action exactly one current version and a scope', () => {
    for (const registered of allActions()) {
      expect(registered.contracts.filter((contract) => contract.status === 'current'), registered.name).toHaveLength(1);
      expect(registered.scope).toMatch(/^[a-z]+$/);
    }
  });
});
