import http from 'node:http';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands, executions, proposals } from '@/db/schema';
import { createAgentKey } from '@/lib/admin/accounts';
import {
  type CommandClaims,
  executorHandler,
  nodeHandler,
  type Receipt,
  resolverHandler,
} from '@/lib/agent-client/index';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { buildEvidenceBundle } from '@/lib/audit/bundle';
import { verifyBundle } from '@/lib/audit/bundle-verify';
import { executeCommand } from '@/lib/commands/execute';
import { commandIssuer } from '@/lib/commands/mint';
import { decide } from '@/lib/decisions/decide';
import { Refusal } from '@/lib/errors/refusal';
import { createGrant } from '@/lib/grants/create';
import { expireOverdue } from '@/lib/jobs/expire-proposals';
import { reconcileExecutions } from '@/lib/jobs/reconcile-executions';
import { currentPolicies } from '@/lib/policy/current';
import { savePolicies } from '@/lib/policy/save';
import { commandKeys } from '@/lib/signing/keys';
import { setupCommandWorld } from '@/test/fixtures/commands';
import { submitAs } from '@/test/intake';
import { isUnder, mutations } from '@/test/json-mutations';
import { tenantActions } from './catalog';
import type { Definition } from './document';
import { MAX_FACTS } from './module';
import { definitionPlanLines, planDefinition } from './plan';
import { setContractStatus } from './set-status';
import { publishDefinition } from './store';

/**
 * A team's own action from end to end (issue 37's acceptance): a definition published in a tenant,
 * a resolver and an executor of the team's written with the TypeScript helpers on the origin the
 * tests allow (ACTION_ALLOWED_ORIGINS, vitest.config.mts), an agent key given the action, and then
 * propose → approve → a command the executor verifies against the published keys → a receipt
 * Countersign checks. Refusals: an unknown field, a rule's own code, a foreign resource; an executor
 * that does not answer in time is reconciled by `GET <executor>/<commandId>`.
 */
const w = setupCommandWorld();
const BASE = 'http://127.0.0.1:4790';
const RESOLVE = `${BASE}/deployments/resolve`;
const EXECUTE = `${BASE}/deployments/execute`;

/** The team's system of record: services by name, each in a tenant, some frozen. */
const SERVICES: Record<string, { tenant: string; environment: string; frozen: boolean }> = {
  'svc-web': { tenant: 'acme', environment: 'staging', frozen: false },
  'svc-db': { tenant: 'acme', environment: 'production', frozen: false },
  'svc-frozen': { tenant: 'acme', environment: 'staging', frozen: true },
  'svc-globex': { tenant: 'globex', environment: 'staging', frozen: false },
};

const closed = (properties: Record<string, unknown>) => ({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

const definition: Definition = {
  name: 'create_deployment',
  title: 'Create deployment',
  scope: 'deploys',
  contracts: [
    {
      version: 1,
      status: 'current',
      args: closed({
        service: { type: 'string', pattern: '^svc-[a-z]{1,20}$' },
        version: { type: 'string', pattern: '^[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}$' },
      }),
      receipt: closed({
        deploymentId: { type: 'string', pattern: '^dep_[0-9]{1,6}$' },
        service: { type: 'string', minLength: 1, maxLength: 40 },
        version: { type: 'string', minLength: 1, maxLength: 20 },
      }),
    },
  ],
  resolve: RESOLVE,
  rules: [
    { code: 'service_frozen', require: '!facts.frozen', message: 'The service is frozen for deploys.' },
    // Read at intake, at approval and at execution alike: the key as it stands each time.
    { code: 'key_names_no_environment', require: "'environments' in agent.grants", message: 'No environments.' },
  ],
  authority: {
    grants: [{ name: 'environments', label: 'Environments it may deploy to' }],
    require: "'environments' in agent.grants && facts.environment in agent.grants.environments",
  },
  summary: { template: 'Deploy {service} at {version}' },
  executor: EXECUTE,
  receiptMatches: ['receipt.service == args.service', 'receipt.version == args.version'],
};

let agent: AgentPrincipal;
const server = http.createServer();
const performed: CommandClaims[] = [];
const receipts = new Map<string, Receipt>();
/** While set, the executor holds each command until it is released (a slow executor). */
let hold: Promise<void> | undefined;

beforeAll(async () => {
  const { jwks } = await commandKeys();
  const service = { jwks: { keys: jwks }, issuer: commandIssuer() };
  const resolver = resolverHandler({
    ...service,
    url: RESOLVE,
    resolve: ({ tenant, args }) => {
      const name = String(args.service);
      // A resolver answering more facts than anyone reads (MAX_FACTS + 1).
      if (name === 'svc-many')
        return {
          tenant,
          resourceKey: 'service:svc-many',
          facts: Object.fromEntries(Array.from({ length: MAX_FACTS + 1 }, (_, index) => [`fact${index}`, index])),
          detail: 'svc-many',
        };
      const known = SERVICES[name];
      if (!known) return undefined;
      // The resolver says whose the resource is; Countersign refuses another tenant's.
      return {
        tenant: known.tenant,
        resourceKey: `service:${name}`,
        facts: { environment: known.environment, frozen: known.frozen },
        detail: `${name} in ${tenant}, ${known.environment}`,
      };
    },
  });
  const executor = executorHandler({
    ...service,
    url: EXECUTE,
    scope: 'deploys',
    async execute(claims) {
      await hold;
      performed.push(claims);
      const receipt = {
        deploymentId: `dep_${performed.length}`,
        service: String(claims.args.service),
        version: String(claims.args.version),
      };
      receipts.set(claims.jti, receipt);
      return { receipt };
    },
    lookup: (commandId) => receipts.get(commandId),
  });
  const resolve = nodeHandler(resolver);
  const execute = nodeHandler(executor);
  server.on('request', (request, response) =>
    (request.url ?? '').startsWith('/deployments/resolve') ? resolve(request, response) : execute(request, response),
  );
  await new Promise<void>((done) => server.listen(4790, '127.0.0.1', done));

  const published = await publishDefinition(w.t.db, {
    tenantId: 'acme',
    document: definition,
    note: 'Deploys go through Countersign',
    by: { type: 'system', id: 'test' },
  });
  expect(published).toMatchObject({ published: true, version: 1 });
  const key = await createAgentKey(w.t.db, {
    tenantId: 'acme',
    agentName: 'deployer',
    actions: ['create_deployment'],
    grants: { environments: ['staging'] },
  });
  agent = {
    keyId: key.id,
    tenantId: 'acme',
    agentName: 'deployer',
    allowedActions: ['create_deployment'],
    grants: { environments: ['staging'] },
    onBehalfOfUserId: null,
  };
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

let sequence = 0;
const propose = (args: Record<string, unknown>) =>
  submitAs(w.t.db, w.systems.client, agent, {
    requestId: `req_deploy_${++sequence}`,
    action: 'create_deployment',
    contractVersion: 1,
    args,
  });

async function refusalOf(args: Record<string, unknown>): Promise<Refusal> {
  const caught = await propose(args).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(caught).toBeInstanceOf(Refusal);
  return caught as Refusal;
}

async function approved(args: Record<string, unknown>) {
  const { proposal } = await propose(args);
  expect(proposal.status).toBe('pending_approval');
  const decided = await decide(w.t.db, w.systems.client, {
    userId: w.world.userId('alice'),
    proposalId: proposal.id,
    request: { decision: 'approve', payloadHash: proposal.payloadHash },
  });
  expect(decided.status).toBe('approved');
  const [command] = await w.t.db.select().from(commands).where(eq(commands.proposalId, proposal.id));
  return { proposal, command: command! };
}

describe("a team's own action, declared", () => {
  it('is proposed, approved, executed by the team executor with a verified command, and its receipt checked', async () => {
    const { proposal, command } = await approved({ service: 'svc-web', version: '1.2.3' });
    expect(proposal.resourceKey).toBe('service:svc-web');
    expect(proposal.facts).toEqual({ environment: 'staging', frozen: false });
    expect(command.scope).toBe('deploys');

    const answer = await executeCommand(w.t.db, { scope: 'deploys', jws: command.jws });
    expect(answer).toMatchObject({
      status: 'succeeded',
      receipt: { deploymentId: 'dep_1', service: 'svc-web', version: '1.2.3' },
    });
    // The executor verified the command itself: the claims are what was approved.
    expect(performed.at(-1)).toMatchObject({
      jti: command.id,
      tenant: 'acme',
      action: 'create_deployment',
      args: { service: 'svc-web', version: '1.2.3' },
      payloadHash: proposal.payloadHash,
      idempotencyKey: `cs.${proposal.id}`,
    });
    // A replay records nothing new and causes no second effect.
    expect(await executeCommand(w.t.db, { scope: 'deploys', jws: command.jws })).toMatchObject({
      status: 'succeeded',
    });
    expect(performed.filter((claims) => claims.jti === command.id)).toHaveLength(1);

    // The evidence bundle proves the definition it was gated by, and the receipt is checked with it offline.
    const keys = await commandKeys();
    const bundle = (await buildEvidenceBundle(w.t.db, 'acme', proposal.id, keys))!;
    const report = await verifyBundle(bundle, keys.jwks);
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
    expect(report.checks.find((check) => check.check === 'definition')?.detail).toContain('create_deployment v1');
    // Every single change to it fails, or touches only what the report prints as not verified.
    const unnoticed: string[] = [];
    for (const mutation of mutations(bundle)) {
      const mutated = await verifyBundle(mutation.document, keys.jwks);
      if (mutated.checks.every((check) => check.ok) && !isUnder(mutation.path, mutated.unverified))
        unnoticed.push(mutation.name);
    }
    expect(unnoticed).toEqual([]);
    const tampered = structuredClone(bundle);
    tampered.definition!.document.receiptMatches = ['true'];
    const without = { ...structuredClone(bundle), definition: null };
    for (const [changed, failing] of [
      [tampered, 'the definition does not hash'],
      [without, 'the bundle has no definition'],
    ] as const) {
      const checks = (await verifyBundle(changed, keys.jwks)).checks.filter((check) => !check.ok);
      expect(checks.map((check) => check.detail).join('; ')).toContain(failing);
    }
  });

  it('refuses an unknown field by its name, a rule by its own code and a foreign resource as not_authorized', async () => {
    const unknown = await refusalOf({ service: 'svc-web', version: '1.0.0', force: true });
    expect([unknown.code, unknown.details.issues]).toEqual([
      'contract_violation',
      [expect.objectContaining({ field: 'force', code: 'unknown_field' })],
    ]);

    const frozen = await refusalOf({ service: 'svc-frozen', version: '1.0.0' });
    expect([frozen.status, frozen.code, frozen.message]).toEqual([
      422,
      'service_frozen',
      'The service is frozen for deploys.',
    ]);

    const foreign = await refusalOf({ service: 'svc-globex', version: '1.0.0' });
    const missing = await refusalOf({ service: 'svc-nothing', version: '1.0.0' });
    // Ungranted: production is not among the key's environments.
    const ungranted = await refusalOf({ service: 'svc-db', version: '1.0.0' });
    for (const refusal of [foreign, missing, ungranted]) {
      expect([refusal.status, refusal.code]).toEqual([403, 'not_authorized']);
      expect(refusal.message).toBe(foreign.message);
    }
    // An answer out of bounds is no answer: unavailable, nothing accepted.
    const many = await refusalOf({ service: 'svc-many', version: '1.0.0' });
    expect([many.status, many.code]).toEqual([503, 'systems_unavailable']);
  });

  it('an executor that does not answer in time is outcome_unknown, then reconciled through GET', async () => {
    const { proposal, command } = await approved({ service: 'svc-web', version: '2.0.0' });
    let release = () => {};
    hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const answer = await executeCommand(w.t.db, { scope: 'deploys', jws: command.jws, deadlineMs: 200 });
    expect(answer).toMatchObject({ status: 'outcome_unknown', errorCode: 'timeout' });
    hold = undefined;
    release();
    await expect.poll(() => receipts.has(command.id)).toBe(true);

    const later = new Date(Date.now() + 60_000);
    const reconciled = await reconcileExecutions(w.t.db, { now: later });
    expect(reconciled).toMatchObject({ succeeded: 1 });
    const [execution] = await w.t.db.select().from(executions).where(eq(executions.proposalId, proposal.id));
    expect(execution).toMatchObject({
      status: 'succeeded',
      receipt: { service: 'svc-web', version: '2.0.0' },
    });
  });

  it("a plan replays the action's recent proposals through a new version, and says what it would refuse", async () => {
    const stricter = structuredClone(definition);
    stricter.rules.push({ code: 'no_two_zero', require: "args.version != '2.0.0'", message: 'Not 2.0.0.' });
    const plan = await planDefinition(w.t.db, 'acme', JSON.stringify(stricter));
    expect(plan).toMatchObject({ ok: true, current: 1 });
    if (!plan.ok) return;
    // Two were proposed above (1.2.3 and 2.0.0); refused intakes are no proposals.
    expect(plan.replay).toEqual({ proposals: 2, invalid: 0, refused: [{ code: 'no_two_zero', count: 1 }] });
    expect(definitionPlanLines(plan)).toContain('  1 would be refused by rule no_two_zero.');

    const elsewhere = { ...structuredClone(definition), executor: 'http://127.0.0.1:4999/deployments/execute' };
    expect(await planDefinition(w.t.db, 'acme', JSON.stringify(elsewhere))).toMatchObject({
      ok: false,
      problems: [{ path: 'executor', message: expect.stringContaining('ACTION_ALLOWED_ORIGINS') }],
    });
  });
});

describe('the tenant controls a declared action as it controls a shipped one', () => {
  const carol = () => ({ type: 'user' as const, id: w.world.userId('carol') });

  it('routes it by the policy an admin saves: listed, versioned, and refused as the new version says', async () => {
    const view = (await currentPolicies(w.t.db, 'acme')).find((each) => each.action === 'create_deployment');
    expect(view).toMatchObject({ version: 0, rules: [expect.objectContaining({ outcome: 'needs_approval' })] });
    const freeze = {
      id: 'deploy-freeze',
      description: 'No deploys during the freeze',
      when: null,
      outcome: 'deny' as const,
      approvals: 0,
      role: 'approver' as const,
    };
    const saved = await savePolicies(w.t.db, 'acme', carol(), {
      policies: [{ ...view!, rules: [freeze] }],
      note: 'Release freeze',
    });
    expect(saved.saved).toEqual([expect.objectContaining({ action: 'create_deployment', version: 1 })]);
    const refused = await refusalOf({ service: 'svc-web', version: '3.0.0' });
    expect([refused.code, refused.message]).toEqual([
      'denied_by_policy',
      'Policy rule "deploy-freeze" (v1) does not allow this create_deployment.',
    ]);
    // A policy naming an action the tenant has neither shipped nor declared is refused, naming the field.
    const unknown = await savePolicies(w.t.db, 'acme', carol(), {
      policies: [{ ...view!, action: 'create_deploymnet' }],
      note: 'Typo',
    }).catch((error: unknown) => error as Refusal);
    expect(unknown).toMatchObject({
      code: 'invalid_policy',
      details: { issues: [expect.objectContaining({ field: 'policies.0.action', code: 'unknown_action' })] },
    });
    await savePolicies(w.t.db, 'acme', carol(), {
      policies: [{ ...view!, version: 1 }],
      note: 'Freeze over',
    });
    const { proposal } = await propose({ service: 'svc-web', version: '3.0.1' });
    expect(proposal).toMatchObject({ status: 'pending_approval', routing: { policyVersion: 2 } });

    // A standing grant from the approved proposal approves the next one in alice's name.
    await decide(w.t.db, w.systems.client, {
      userId: w.world.userId('alice'),
      proposalId: proposal.id,
      request: { decision: 'approve', payloadHash: proposal.payloadHash },
    });
    const grant = await createGrant(w.t.db, {
      tenantId: 'acme',
      userId: w.world.userId('alice'),
      request: { proposalId: proposal.id, minutes: 30, maxCount: 1, sameResource: true, reason: 'Release day' },
    });
    expect(grant).toMatchObject({ action: 'create_deployment', maxCount: 1 });
    const covered = await propose({ service: 'svc-web', version: '3.0.2' });
    expect(covered.proposal.status).toBe('approved');
  });

  it('moves its versions through the rollout; publishing the document again says it restores what it declares', async () => {
    const two = structuredClone(definition);
    two.contracts.push({ ...structuredClone(two.contracts[0]!), version: 2, status: 'shadow' });
    expect(
      await publishDefinition(w.t.db, { tenantId: 'acme', document: two, note: 'v2 in shadow', by: carol() }),
    ).toMatchObject({ published: true, version: 2 });
    const moved = await setContractStatus(w.t.db, {
      tenantId: 'acme',
      userId: w.world.userId('carol'),
      action: 'create_deployment',
      version: 2,
      request: { status: 'current' },
    });
    expect(moved.changed).toBe(true);
    const statuses = async () =>
      (await tenantActions(w.t.db, 'acme'))
        .find((action) => action.name === 'create_deployment')!
        .contracts.map((contract) => `v${contract.version} ${contract.status}`);
    expect(await statuses()).toEqual(['v1 supported', 'v2 current']);

    const edited = structuredClone(two);
    edited.title = 'Create a deployment';
    const plan = await planDefinition(w.t.db, 'acme', JSON.stringify(edited));
    expect(plan.warnings).toEqual(
      expect.arrayContaining([
        'v1 is supported in this tenant (set on the Contracts page); publishing makes it current, as this document says.',
        'v2 is current in this tenant (set on the Contracts page); publishing makes it shadow, as this document says.',
      ]),
    );
    await publishDefinition(w.t.db, { tenantId: 'acme', document: edited, note: 'Title', by: carol() });
    expect(await statuses()).toEqual(['v1 current', 'v2 shadow']);
  });
});

describe('every earlier guarantee holds for a declared action', () => {
  const carol = () => ({ type: 'user' as const, id: w.world.userId('carol') });
  const approveAs = (person: 'alice' | 'bob', proposal: { id: string; payloadHash: string }) =>
    decide(w.t.db, w.systems.client, {
      userId: w.world.userId(person),
      proposalId: proposal.id,
      request: { decision: 'approve', payloadHash: proposal.payloadHash },
    });
  const refusalOfDecision = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => (error instanceof Refusal ? error.code : error),
    );

  it('staleness: the resource its resolver answers for moved against a rule, so approving ends it stale', async () => {
    const { proposal } = await propose({ service: 'svc-web', version: '4.0.0' });
    expect(proposal.status).toBe('pending_approval');
    SERVICES['svc-web']!.frozen = true;
    try {
      expect(await refusalOfDecision(approveAs('alice', proposal))).toBe('stale');
    } finally {
      SERVICES['svc-web']!.frozen = false;
    }
    const [after] = await w.t.db.select().from(proposals).where(eq(proposals.id, proposal.id));
    expect(after?.status).toBe('stale');
  });

  it('expiry: a proposal nobody decides expires after the policy’s hours', async () => {
    const { proposal } = await propose({ service: 'svc-web', version: '4.0.1' });
    expect(await expireOverdue(w.t.db, new Date(Date.now() + 25 * 3_600_000))).toBeGreaterThanOrEqual(1);
    const [after] = await w.t.db.select().from(proposals).where(eq(proposals.id, proposal.id));
    expect(after?.status).toBe('expired');
  });

  it('quorum: two approvers, distinct; the first alone approves nothing and cannot count twice', async () => {
    const view = (await currentPolicies(w.t.db, 'acme')).find((each) => each.action === 'create_deployment')!;
    await savePolicies(w.t.db, 'acme', carol(), {
      policies: [{ ...view, rules: [{ ...view.rules[0]!, approvals: 2 }] }],
      note: 'Two people for every deploy',
    });
    const { proposal } = await propose({ service: 'svc-web', version: '4.0.2' });
    expect(proposal).toMatchObject({ status: 'pending_approval', routing: { approvals: 2 } });
    expect((await approveAs('alice', proposal)).status).toBe('pending_approval');
    expect(await refusalOfDecision(approveAs('alice', proposal))).toBe('already_decided');
    expect((await approveAs('bob', proposal)).status).toBe('approved');
    const minted = await w.t.db.select().from(commands).where(eq(commands.proposalId, proposal.id));
    expect(minted).toHaveLength(1);
  });
});
