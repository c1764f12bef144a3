/**
 * A tenant's contract rollout changes what its agents get, and nobody else's: promote, sunset,
 * retire and shadow through setContractStatus, observed through intake (submitAs) and, for the
 * Deprecation/Sunset headers, through the real routes of POST /api/v1/proposals and GET of a proposal.
 */
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { GET as contractsRoute } from '@/app/api/v1/contracts/route';
import { GET as proposalRoute } from '@/app/api/v1/proposals/[id]/route';
import { POST as proposalsRoute } from '@/app/api/v1/proposals/route';
import { auditEvents, contractRollouts } from '@/db/schema';
import { tenantActions } from '@/lib/definitions/catalog';
import { setContractStatus } from '@/lib/definitions/set-status';
import { chainAllPending } from '@/lib/events/chainer';
import type { SystemsClient } from '@/lib/systems/client';
import { setupTestDatabase } from '@/test/db';
import { expectApiError } from '@/test/errors';
import { attemptsOf, expectRejection, submitAs } from '@/test/intake';
import { setupRouteSystems } from '@/test/systems';
import { agentRequest, type SeededWorld, seedWorld } from '@/test/world';
import type { TransitionRequest } from './rollout';

// The agent routes need no session; next-auth itself does not load outside Next.
vi.mock('@/lib/auth', () => ({ auth: async () => null }));

const t = setupTestDatabase();
const systemsOfRecord = await setupRouteSystems(t);
let systems: SystemsClient;
let world: SeededWorld;

beforeAll(async () => {
  systems = systemsOfRecord.client;
  world = await seedWorld(t.db);
});

const hold = (requestId: string, contractVersion: number, sku = 'filter-blue') => ({
  requestId,
  action: 'hold_stock',
  contractVersion,
  args: { sku, quantity: 1 },
});
const acmeTenant = async () => (await world.agent('acme')).tenantId;
const move = async (version: number, request: TransitionRequest, action = 'hold_stock', now?: Date) =>
  setContractStatus(
    t.db,
    { tenantId: await acmeTenant(), userId: world.userId('carol'), action, version, request },
    now,
  );
const statuses = async (tenantId: string) =>
  Object.fromEntries(
    (await tenantActions(t.db, tenantId))
      .find((a) => a.name === 'hold_stock')!
      .contracts.map((c) => [c.version, c.status]),
  );
const postProposal = (body: unknown) =>
  proposalsRoute(
    agentRequest(world.agentKey('acme'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );

describe('contract rollout per tenant', () => {
  it('starts from the module defaults: hold_stock v1 current, v2 shadow', async () => {
    expect(await statuses(await acmeTenant())).toEqual({ 1: 'current', 2: 'shadow' });
  });

  it('refuses invalid transitions with 409 and a specific code, changing nothing', async () => {
    await expectApiError(move(1, { status: 'retired' }), {
      status: 409,
      code: 'cannot_retire_current',
      kind: 'business_rule',
    });
    await expectApiError(move(1, { status: 'supported' }), { status: 409, code: 'cannot_demote_current' });
    await expectApiError(move(1, { status: 'shadow' }), { status: 409, code: 'cannot_demote_current' });
    await expectApiError(move(2, { status: 'shadow', sunsetAt: new Date(Date.now() + 86_400_000) }), {
      status: 422,
      code: 'sunset_requires_supported',
    });
    await expectApiError(move(3, { status: 'current' }), { status: 404, code: 'not_found' });
    await expectApiError(
      setContractStatus(t.db, {
        tenantId: await acmeTenant(),
        userId: world.userId('carol'),
        action: 'launch_rocket',
        version: 1,
        request: { status: 'current' },
      }),
      { status: 404, code: 'not_found' },
    );
    expect(await t.db.select().from(contractRollouts)).toEqual([]);
  });

  it('records shadow verdicts only while a version is in shadow, also for candidates current refuses', async () => {
    await move(2, { status: 'retired' });
    await submitAs(t.db, systems, await world.agent('acme'), hold('sh_retired', 1));
    expect((await attemptsOf(t.db, await world.agent('acme'), 'sh_retired'))[0]?.shadow).toBeNull();
    await expectApiError(move(2, { status: 'current' }), { status: 409, code: 'retired_needs_reinstatement' });

    await move(2, { status: 'shadow' });
    await submitAs(t.db, systems, await world.agent('acme'), hold('sh_back', 1));
    expect((await attemptsOf(t.db, await world.agent('acme'), 'sh_back'))[0]?.shadow).toEqual([
      { version: 2, accepted: true, codes: [] },
    ]);
    // v1 refuses quantity 9; shadow v2 is still asked, and its verdict kept beside the refusal.
    const acme = await world.agent('acme');
    const { attempt } = await expectRejection(
      t.db,
      () =>
        submitAs(t.db, systems, acme, {
          ...hold('sh_refused', 1, 'Filter-Blue'),
          args: { sku: 'Filter-Blue', quantity: 9 },
        }),
      { status: 422, code: 'contract_violation' },
    );
    expect(attempt.shadow).toEqual([
      { version: 2, accepted: false, codes: ['sku:invalid_format', 'quantity:too_big'] },
    ]);
  });

  it('promotes v2 to current: v1 becomes supported (exactly one current), audited, and v1 users get Deprecation', async () => {
    const before = new Date(Math.floor(Date.now() / 1000) * 1000);
    const { action, changed } = await move(2, { status: 'current' });
    expect(changed).toBe(true);
    expect(action.contracts.map((c) => [c.version, c.status])).toEqual([
      [1, 'supported'],
      [2, 'current'],
    ]);
    await chainAllPending(t.db);
    const [event] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.type, 'contract.status_changed'), eq(auditEvents.reasonCode, 'current')));
    expect(event).toMatchObject({
      actorType: 'user',
      actorId: world.userId('carol'),
      contractVersion: 2,
      data: { action: 'hold_stock', version: 2, from: 'shadow', to: 'current', demotedToSupported: 1, sunsetAt: null },
    });

    const response = await postProposal(hold('dep_v1', 1));
    expect(response.status).toBe(201);
    const deprecation = response.headers.get('deprecation');
    expect(deprecation).toMatch(/^@\d+$/);
    expect(Number(deprecation!.slice(1)) * 1000).toBeGreaterThanOrEqual(before.getTime());
    expect(response.headers.get('sunset')).toBeNull();
    // The current version carries neither header.
    const current = await postProposal(hold('dep_v2', 2));
    expect(current.status).toBe(201);
    expect(current.headers.get('deprecation')).toBeNull();
    // A second promotion request is no change and writes nothing.
    expect((await move(2, { status: 'current' })).changed).toBe(false);
  });

  it('sets and clears a sunset on the supported version: Sunset on POST and on GET of the proposal, Deprecation unchanged', async () => {
    await expectApiError(move(1, { status: 'supported', sunsetAt: new Date(Date.now() - 1000) }), {
      status: 422,
      code: 'sunset_in_past',
    });
    const sunsetAt = new Date(Date.UTC(2031, 0, 15, 12, 0, 0));
    const first = await postProposal(hold('sun_before', 1));
    await move(1, { status: 'supported', sunsetAt });
    const response = await postProposal(hold('sun_v1', 1));
    expect(response.status).toBe(201);
    expect(response.headers.get('sunset')).toBe('Wed, 15 Jan 2031 12:00:00 GMT');
    expect(response.headers.get('deprecation')).toBe(first.headers.get('deprecation'));
    const { proposal } = (await response.json()) as { proposal: { id: string } };
    const read = await proposalRoute(agentRequest(world.agentKey('acme')), {
      params: Promise.resolve({ id: proposal.id }),
    });
    expect(read.status).toBe(200);
    expect(read.headers.get('sunset')).toBe('Wed, 15 Jan 2031 12:00:00 GMT');
    const contracts = (await (await contractsRoute(agentRequest(world.agentKey('acme')))).json()) as {
      actions: { action: string; versions: { version: number; status: string; sunsetAt: string | null }[] }[];
    };
    expect(
      contracts.actions
        .find((a) => a.action === 'hold_stock')
        ?.versions.map(({ version, status, sunsetAt: s }) => ({ version, status, sunsetAt: s })),
    ).toEqual([
      { version: 1, status: 'supported', sunsetAt: sunsetAt.toISOString() },
      { version: 2, status: 'current', sunsetAt: null },
    ]);

    await move(1, { status: 'supported', sunsetAt: null });
    expect((await postProposal(hold('sun_cleared', 1))).headers.get('sunset')).toBeNull();
    await move(1, { status: 'supported', sunsetAt });
  });

  it('leaves another tenant on the module defaults', async () => {
    const globex = await world.agent('globex');
    expect(await statuses(globex.tenantId)).toEqual({ 1: 'current', 2: 'shadow' });
    const { proposal } = await submitAs(t.db, systems, globex, hold('globex_v1', 1, 'filter-green'));
    expect(proposal.contractVersion).toBe(1);
    await expectApiError(submitAs(t.db, systems, globex, hold('globex_v2', 2, 'filter-green')), {
      status: 422,
      code: 'unsupported_contract_version',
    });
  });

  it('retires v1: intake answers 422 unsupported_contract_version with the supported versions', async () => {
    await move(1, { status: 'retired' });
    expect(await statuses(await acmeTenant())).toEqual({ 1: 'retired', 2: 'current' });
    const acme = await world.agent('acme');
    const { error } = await expectRejection(t.db, () => submitAs(t.db, systems, acme, hold('ret_v1', 1)), {
      status: 422,
      kind: 'schema',
      code: 'unsupported_contract_version',
    });
    expect(error.details.supportedVersions).toEqual([2]);
    expect(error.details.issues).toEqual([
      expect.objectContaining({ field: 'contractVersion', code: 'unsupported_contract_version' }),
    ]);
    // Reinstating goes through supported (or shadow), never straight to current.
    await expectApiError(move(1, { status: 'current' }), { status: 409, code: 'retired_needs_reinstatement' });
    await expectApiError(move(2, { status: 'retired' }), { status: 409, code: 'cannot_retire_current' });
    await move(1, { status: 'supported' });
    expect((await postProposal(hold('ret_back', 1))).headers.get('deprecation')).toMatch(/^@\d+$/);
    await expectApiError(move(1, { status: 'shadow' }), { status: 409, code: 'invalid_transition' });
  });
});
