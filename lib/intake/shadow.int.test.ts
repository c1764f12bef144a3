import { describe, expect, it } from 'vitest';
import { setupTestDatabase } from '@/test/db';
import { attemptsOf, expectRejection, submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { seededAgents } from '@/test/world';

/** hold_stock v2 is in shadow: evaluated beside v1 on every request, recorded, never deciding. */
const t = setupTestDatabase();
const systems = setupDemoSystems();
const agents = seededAgents(t);

const hold = (requestId: string, sku: string) => ({
  requestId,
  action: 'hold_stock',
  contractVersion: 1,
  args: { sku, quantity: 1 },
});

describe('shadow contract versions', () => {
  it('records agreement on an accepted proposal', async () => {
    const outcome = await submitAs(t.db, systems.client, agents.acme, hold('shadow_ok', 'filter-blue'));
    expect(outcome.created).toBe(true);
    const [attempt] = await attemptsOf(t.db, agents.acme, 'shadow_ok');
    expect(attempt?.shadow).toEqual([{ version: 2, accepted: true, codes: [] }]);
  });

  it('records a disagreement without letting it decide: v1 accepts the shape, Meaning refuses, v2 would have refused the shape', async () => {
    await expectRejection(
      t.db,
      () => submitAs(t.db, systems.client, agents.acme, hold('shadow_upper', 'Filter-Blue')),
      {
        status: 403,
        kind: 'authorization',
        code: 'not_authorized',
      },
    );
    const [attempt] = await attemptsOf(t.db, agents.acme, 'shadow_upper');
    expect(attempt?.shadow).toEqual([{ version: 2, accepted: false, codes: ['sku:invalid_format'] }]);
  });

  it('refuses a request for the shadow version itself with the supported list', async () => {
    const error = await expectRejection(
      t.db,
      () =>
        submitAs(t.db, systems.client, agents.acme, { ...hold('shadow_direct', 'filter-blue'), contractVersion: 2 }),
      {
        status: 422,
        kind: 'schema',
        code: 'unsupported_contract_version',
      },
    );
    expect(error.error.details.supportedVersions).toEqual([1]);
  });
});
