/**
 * Passkeys end to end below the browser: the /me/passkeys and challenge routes as Next calls them
 * (a fetch Request, a same-origin Origin; next-auth does not load outside Next, so `auth()` answers
 * the session this file names), the decision itself through `decide` with the relying party the
 * route derives, and the evidence bundle checked offline. The authenticator is a software one
 * (test/passkey-authenticator.ts) that makes the bytes a browser would send.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DELETE as removeAsAdmin } from '@/app/api/v1/admin/passkeys/[id]/route';
import { DELETE as removeOwn } from '@/app/api/v1/me/passkeys/[id]/route';
import { POST as registrationOptionsRoute } from '@/app/api/v1/me/passkeys/options/route';
import { GET as listRoute, POST as registerRoute } from '@/app/api/v1/me/passkeys/route';
import { POST as challengeRoute } from '@/app/api/v1/proposals/[id]/decisions/challenge/route';
import { POST as decisionRoute } from '@/app/api/v1/proposals/[id]/decisions/route';
import { auditEvents, decisions, memberships, type Proposal, passkeyChallenges, passkeys, tenants } from '@/db/schema';
import { grantRole } from '@/lib/admin/accounts';
import { buildEvidenceBundle } from '@/lib/audit/bundle';
import { type EvidenceBundle, verifyBundle } from '@/lib/audit/bundle-verify';
import { verifyCheckpoint } from '@/lib/audit/tlog/note';
import { rowHash } from '@/lib/audit/verify';
import { decide } from '@/lib/decisions/decide';
import { verifySignedDecision } from '@/lib/decisions/passkey-signature';
import type { DecisionRequest } from '@/lib/decisions/requests';
import { chainAllPending } from '@/lib/events/chainer';
import { commandKeys } from '@/lib/signing/keys';
import { runCli } from '@/test/cli';
import { setupTestDatabase } from '@/test/db';
import { expectApiError } from '@/test/errors';
import { HOLDS_ONE_APPROVER, publishNextRules } from '@/test/fixtures/policies';
import { submitAs } from '@/test/intake';
import { isUnder, mutations } from '@/test/json-mutations';
import { SoftwareAuthenticator } from '@/test/passkey-authenticator';
import { auditRowsFor, proposalRow, rowCounts } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { type PersonName, seededWorld } from '@/test/world';
import { removePasskey } from './removal';
import type { DecisionStatement, SignedDecision } from './requests';
import { statementChallenge } from './statement';
import { setPasskeysRequired } from './tenant-setting';

const session = vi.hoisted(() => ({ userId: undefined as string | undefined }));
vi.mock('@/lib/auth', () => ({ auth: async () => (session.userId ? { operatorId: session.userId } : null) }));
// No tenant cookie: each person looks at their first tenant.
vi.mock('next/headers', () => ({ cookies: async () => ({ get: () => undefined }) }));

const t = setupTestDatabase();
const systems = setupDemoSystems();
const seeded = seededWorld(t);

const globalForDb = globalThis as unknown as { countersignDb?: Promise<unknown> };
beforeAll(() => {
  globalForDb.countersignDb = Promise.resolve(t.handle);
});
afterAll(() => {
  globalForDb.countersignDb = undefined;
});

const HOST = 'countersign.test';
const ORIGIN = `http://${HOST}`;
const RP = { id: HOST, origin: ORIGIN, name: 'Countersign' };

type Answer = {
  status: number;
  body: Record<string, unknown> & { error?: { code: string; message: string; issues?: Record<string, unknown>[] } };
};
type Route<P> = (request: Request, context: { params: Promise<P> }) => Promise<Response>;

async function call<P>(
  person: PersonName,
  route: Route<P>,
  method: string,
  path: string,
  body?: unknown,
  params?: P,
): Promise<Answer> {
  session.userId = seeded.world.userId(person);
  const request = new Request(`${ORIGIN}${path}`, {
    method,
    headers: { host: HOST, origin: ORIGIN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const response = await route(request, { params: Promise.resolve(params ?? ({} as P)) });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

/** Registers a new software passkey for `person` through the routes, named `name`. */
async function addPasskey(
  person: PersonName,
  name: string,
): Promise<{ authenticator: SoftwareAuthenticator; id: string }> {
  const authenticator = new SoftwareAuthenticator(HOST, ORIGIN);
  const options = await call(person, registrationOptionsRoute, 'POST', '/api/v1/me/passkeys/options', {});
  expect(options.status).toBe(200);
  const added = await call(person, registerRoute, 'POST', '/api/v1/me/passkeys', {
    name,
    response: authenticator.register(options.body as { challenge: string }),
  });
  expect(added).toMatchObject({ status: 201, body: { passkey: { name, lastUsedAt: null } } });
  return { authenticator, id: (added.body.passkey as { id: string }).id };
}

let sequence = 0;
async function propose(quantity = 2): Promise<Proposal> {
  const body = {
    requestId: `req_passkey_${++sequence}`,
    action: 'hold_stock',
    contractVersion: 1,
    args: { sku: 'filter-blue', quantity },
  };
  const { proposal } = await submitAs(t.db, systems.client, seeded.acme, body);
  expect(proposal.status).toBe('pending_approval');
  return proposal;
}

/** The statement and options the challenge route answers for `person` deciding `proposal`. */
async function challenge(person: PersonName, proposal: Proposal, decision: 'approve' | 'reject') {
  const answer = await call(
    person,
    challengeRoute,
    'POST',
    `/api/v1/proposals/${proposal.id}/decisions/challenge`,
    { decision },
    { id: proposal.id },
  );
  expect(answer.status).toBe(200);
  return answer.body as {
    statement: DecisionStatement;
    options: { challenge: string; rpId: string; userVerification: string; allowCredentials: { id: string }[] };
  };
}

async function signed(
  person: PersonName,
  authenticator: SoftwareAuthenticator,
  proposal: Proposal,
  decision: 'approve' | 'reject',
  override?: Parameters<SoftwareAuthenticator['assert']>[1],
): Promise<SignedDecision> {
  const { statement, options } = await challenge(person, proposal, decision);
  return { statement, response: authenticator.assert(options, override) };
}

const request = (proposal: Proposal, decision: 'approve' | 'reject', passkey?: SignedDecision): DecisionRequest => ({
  decision,
  payloadHash: proposal.payloadHash,
  ...(decision === 'reject' ? { reason: 'Needs more evidence' } : {}),
  ...(passkey ? { passkey } : {}),
});

const decideAs = (person: PersonName, proposal: Proposal, body: DecisionRequest, now?: Date) =>
  decide(
    t.db,
    systems.client,
    { userId: seeded.world.userId(person), proposalId: proposal.id, request: body, relyingParty: RP },
    now,
  );

const unchanged = async (proposal: Proposal) => {
  expect((await proposalRow(t.db, proposal.id)).status).toBe('pending_approval');
  expect(await t.db.select().from(decisions).where(eq(decisions.proposalId, proposal.id))).toEqual([]);
};

/** A copy of `body` with `value` at the dotted `field`: a field added, a named one changed, or (undefined) left out. */
function withField<T>(body: T, field: string, value: unknown): T {
  const copy = structuredClone(body) as Record<string, unknown>;
  const keys = field.split('.');
  let node = copy;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys.at(-1)!] = value;
  return copy as T;
}

/** Whether a challenge is still kept, unused. */
const challengeKept = async (challenge: string) =>
  (await t.db.select().from(passkeyChallenges).where(eq(passkeyChallenges.challenge, challenge))).length === 1;

/** A refusal of one field: 422 with the route's code and exactly that issue, in the API's issue shape. */
const refusedField = (answer: Answer, code: string, issue: { field: string; code: string; expected: string }) => {
  expect(answer).toMatchObject({ status: 422, body: { error: { code } } });
  expect(answer.body.error?.issues).toEqual([
    {
      field: issue.field,
      code: issue.code,
      expected: expect.stringContaining(issue.expected),
      received: expect.any(String),
      message: expect.any(String),
    },
  ]);
};

let alice: { authenticator: SoftwareAuthenticator; id: string };
let bob: { authenticator: SoftwareAuthenticator; id: string };

describe('passkeys', () => {
  beforeAll(async () => {
    alice = await addPasskey('alice', 'YubiKey 5');
    bob = await addPasskey('bob', 'Laptop');
  });

  it('registers with user verification, lists names and dates only, and audits the key bound to the person', async () => {
    const listed = await call('alice', listRoute, 'GET', '/api/v1/me/passkeys');
    expect(listed).toMatchObject({
      status: 200,
      body: { passkeys: [{ id: alice.id, name: 'YubiKey 5', lastUsedAt: null }], hostProblem: null },
    });
    expect(JSON.stringify(listed.body)).not.toContain(alice.authenticator.publicKey);

    await chainAllPending(t.db);
    const [registered] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.type, 'passkey.registered'), eq(auditEvents.actorId, seeded.world.userId('alice'))));
    expect(registered).toMatchObject({
      tenantId: 'acme',
      data: {
        user: seeded.world.userId('alice'),
        credential: alice.authenticator.id,
        publicKey: alice.authenticator.publicKey,
        name: 'YubiKey 5',
        rpId: HOST,
      },
    });

    // A registration answers one challenge once; without user verification it is refused.
    const authenticator = new SoftwareAuthenticator(HOST, ORIGIN);
    const options = (await call('alice', registrationOptionsRoute, 'POST', '/api/v1/me/passkeys/options', {})).body as {
      challenge: string;
    };
    expect(options).toMatchObject({
      rp: { id: HOST },
      pubKeyCredParams: [-7, -8, -257].map((alg) => ({ alg, type: 'public-key' })),
      authenticatorSelection: { userVerification: 'required' },
      excludeCredentials: [{ id: alice.authenticator.id }],
    });
    const unverified = await call('alice', registerRoute, 'POST', '/api/v1/me/passkeys', {
      name: 'No PIN',
      response: authenticator.register(options, false),
    });
    expect(unverified).toMatchObject({ status: 422, body: { error: { code: 'passkey_invalid' } } });
    const answer = authenticator.register(options);
    expect(
      (await call('alice', registerRoute, 'POST', '/api/v1/me/passkeys', { name: 'Phone', response: answer })).status,
    ).toBe(201);
    expect(
      await call('alice', registerRoute, 'POST', '/api/v1/me/passkeys', { name: 'Phone again', response: answer }),
    ).toMatchObject({ status: 410, body: { error: { code: 'passkey_challenge_unknown' } } });
    const phone = (await call('alice', listRoute, 'GET', '/api/v1/me/passkeys')).body.passkeys as {
      id: string;
      name: string;
    }[];
    expect(phone.map((row) => row.name)).toEqual(['YubiKey 5', 'Phone']);
    expect(
      (await call('alice', removeOwn, 'DELETE', `/api/v1/me/passkeys/${phone[1]!.id}`, undefined, { id: phone[1]!.id }))
        .status,
    ).toBe(200);
  });

  it.each([
    ['the body @simplewebauthn/browser sends from a Level 3 browser', []],
    [
      'a Level 2 browser’s body: no authenticator data, public key, algorithm, transports, extension outputs or attachment',
      [
        'response.response.authenticatorData',
        'response.response.publicKey',
        'response.response.publicKeyAlgorithm',
        'response.response.transports',
        'response.clientExtensionResults',
        'response.authenticatorAttachment',
      ],
    ],
  ])('registers %s', async (_label, absent: string[]) => {
    const options = (await call('dave', registrationOptionsRoute, 'POST', '/api/v1/me/passkeys/options', {})).body as {
      challenge: string;
    };
    const body = absent.reduce((sent, field) => withField(sent, field, undefined), {
      name: 'Browser',
      response: new SoftwareAuthenticator(HOST, ORIGIN).register(options),
    });
    const added = await call('dave', registerRoute, 'POST', '/api/v1/me/passkeys', body);
    expect(added).toMatchObject({ status: 201, body: { passkey: { name: 'Browser' } } });
    const id = (added.body.passkey as { id: string }).id;
    expect((await call('dave', removeOwn, 'DELETE', `/api/v1/me/passkeys/${id}`, undefined, { id })).status).toBe(200);
  });

  it.each([
    ['an unknown field beside the credential', 'response.extra', 1, 'unknown_field', 'no such field'],
    ['an unknown field in its response', 'response.response.extra', 'x', 'unknown_field', 'no such field'],
    [
      'an output of an extension the options did not ask for',
      'response.clientExtensionResults.prf',
      { enabled: true },
      'unknown_field',
      'no such field',
    ],
    [
      'an unknown field in credProps',
      'response.clientExtensionResults.credProps.extra',
      true,
      'unknown_field',
      'no such field',
    ],
    [
      'credProps.rk that is no boolean',
      'response.clientExtensionResults.credProps.rk',
      'yes',
      'invalid_type',
      'boolean',
    ],
    [
      'a public key algorithm that is no integer',
      'response.response.publicKeyAlgorithm',
      -7.5,
      'invalid_type',
      'integer',
    ],
    [
      'a public key that is not base64url',
      'response.response.publicKey',
      'MFkw+EwY=',
      'invalid_format',
      'text matching',
    ],
    ['authenticator data that is no string', 'response.response.authenticatorData', 12, 'invalid_type', 'string'],
    ['transports that are no list', 'response.response.transports', 'internal', 'invalid_type', 'array'],
  ])(
    'refuses a registration with %s: 422, nothing stored, the challenge still unused',
    async (_label, field, value, code, expected) => {
      const options = (await call('dave', registrationOptionsRoute, 'POST', '/api/v1/me/passkeys/options', {}))
        .body as { challenge: string };
      const before = { rows: await rowCounts(t.db), passkeys: await t.db.select().from(passkeys) };
      const body = withField(
        { name: 'Refused', response: new SoftwareAuthenticator(HOST, ORIGIN).register(options) },
        field,
        value,
      );
      refusedField(await call('dave', registerRoute, 'POST', '/api/v1/me/passkeys', body), 'invalid_passkey', {
        field,
        code,
        expected,
      });
      expect({ rows: await rowCounts(t.db), passkeys: await t.db.select().from(passkeys) }).toEqual(before);
      expect(await challengeKept(options.challenge)).toBe(true);
    },
  );

  it.each([
    ['an unknown field beside the statement and assertion', 'passkey.extra', 1, 'unknown_field', 'no such field'],
    ['an unknown field in the statement', 'passkey.statement.extra', 'x', 'unknown_field', 'no such field'],
    [
      'an unknown field beside the assertion’s response',
      'passkey.response.extra',
      'x',
      'unknown_field',
      'no such field',
    ],
    [
      'an unknown field in the assertion’s response',
      'passkey.response.response.extra',
      'x',
      'unknown_field',
      'no such field',
    ],
    [
      'an output of an extension the options did not ask for',
      'passkey.response.clientExtensionResults.credProps',
      { rk: true },
      'unknown_field',
      'no such field',
    ],
    [
      'a user handle that is not base64url',
      'passkey.response.response.userHandle',
      'usr 1',
      'invalid_format',
      'text matching',
    ],
  ])(
    'refuses a signed decision with %s: 422, nothing recorded, the challenge still unused',
    async (_label, field, value, code, expected) => {
      const proposal = await propose();
      const sent = request(proposal, 'reject', await signed('alice', alice.authenticator, proposal, 'reject'));
      const decideThrough = (body: DecisionRequest) =>
        call('alice', decisionRoute, 'POST', `/api/v1/proposals/${proposal.id}/decisions`, body, { id: proposal.id });
      const before = await rowCounts(t.db);
      refusedField(await decideThrough(withField(sent, field, value)), 'invalid_decision', { field, code, expected });
      expect(await rowCounts(t.db)).toEqual(before);
      await unchanged(proposal);
      expect(await challengeKept(statementChallenge(sent.passkey!.statement))).toBe(true);
      // The same assertion as the browser sent it passes.
      expect(await decideThrough(sent)).toMatchObject({ status: 200, body: { status: 'rejected' } });
    },
  );

  it('a statement is this proposal, decision, stored hash, revision and person; the challenge is its hash, for their passkeys, with user verification', async () => {
    const proposal = await propose();
    const { statement, options } = await challenge('alice', proposal, 'approve');
    expect(statement).toMatchObject({
      proposalId: proposal.id,
      tenantId: 'acme',
      decision: 'approve',
      payloadHash: proposal.payloadHash,
      revisionOf: null,
      userId: seeded.world.userId('alice'),
    });
    expect(new Date(statement.expiresAt).getTime() - new Date(statement.issuedAt).getTime()).toBe(120_000);
    expect(options).toMatchObject({
      challenge: statementChallenge(statement),
      rpId: HOST,
      userVerification: 'required',
      allowCredentials: [{ id: alice.authenticator.id }],
    });
    // Someone who may not decide gets no statement.
    expect(
      (
        await call(
          'dave',
          challengeRoute,
          'POST',
          `/api/v1/proposals/${proposal.id}/decisions/challenge`,
          { decision: 'approve' },
          { id: proposal.id },
        )
      ).body.error?.code,
    ).toBe('forbidden_role');
  });

  it('where a rule says "passkey": true, an approval without one is refused passkey_required, and a signed one is recorded with the statement, assertion and key', async () => {
    await publishNextRules(t.db, 'acme', 'hold_stock', [
      {
        id: 'big-holds-signed',
        description: 'Holds above 3 need a passkey',
        when: { field: 'quantity', above: 3 },
        outcome: 'needs_approval',
        approvals: 1,
        role: 'approver',
        passkey: true,
      },
      HOLDS_ONE_APPROVER,
    ]);
    const proposal = await propose(4);
    expect(proposal.routing).toMatchObject({ rule: 'big-holds-signed', passkey: true });

    await expectApiError(decideAs('alice', proposal, request(proposal, 'approve')), {
      status: 403,
      code: 'passkey_required',
    });
    await unchanged(proposal);

    const passkey = await signed('alice', alice.authenticator, proposal, 'approve');
    const approved = await decideAs('alice', proposal, request(proposal, 'approve', passkey));
    expect(approved.status).toBe('approved');

    const event = (await auditRowsFor(t.db, proposal.id)).find((row) => row.type === 'proposal.approved')!;
    expect(event.data).toMatchObject({
      passkey: alice.id,
      passkeyName: 'YubiKey 5',
      passkeyCredential: alice.authenticator.id,
      passkeyPublicKey: alice.authenticator.publicKey,
      passkeyRpId: HOST,
      passkeyStatement: JSON.stringify(
        Object.fromEntries(Object.entries(passkey.statement).sort(([a], [b]) => (a < b ? -1 : 1))),
      ),
      passkeyAuthenticatorData: passkey.response.response.authenticatorData,
      passkeyClientData: passkey.response.response.clientDataJSON,
      passkeySignature: passkey.response.response.signature,
    });
    const [row] = await t.db.select().from(passkeys).where(eq(passkeys.id, alice.id));
    expect(row).toMatchObject({ counter: alice.authenticator.counter });
    expect(row!.lastUsedAt).not.toBeNull();

    // Offline: the bundle verifies, and names the passkey.
    const bundle = (await buildEvidenceBundle(t.db, 'acme', proposal.id, await commandKeys()))!;
    const report = await verifyBundle(bundle);
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
    expect(report.checks.find((check) => check.check === 'passkeys')?.detail).toContain(
      'with passkey ‘YubiKey 5’ (signature verified',
    );
    expect(report.verified.join('\n')).toMatch(/approved by Alice[^\n]* with passkey ‘YubiKey 5’ \(signature verified/);
    signedBundle = bundle;
  });

  it('signs a rejection too', async () => {
    const proposal = await propose();
    const rejected = await decideAs(
      'bob',
      proposal,
      request(proposal, 'reject', await signed('bob', bob.authenticator, proposal, 'reject')),
    );
    expect(rejected.status).toBe('rejected');
    const event = (await auditRowsFor(t.db, proposal.id)).find((row) => row.type === 'proposal.rejected')!;
    expect(event.data).toMatchObject({ passkeyName: 'Laptop', passkeyCredential: bob.authenticator.id });
    const report = await verifyBundle((await buildEvidenceBundle(t.db, 'acme', proposal.id, await commandKeys()))!);
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
    expect(report.verified.join('\n')).toMatch(/rejected by Bob[^\n]* with passkey ‘Laptop’ \(signature verified/);
  });

  it('a passkey added before its owner joined a tenant is registered in that tenant at its first signature there, so the bundle binds it', async () => {
    await grantRole(t.db, { tenantId: 'globex', email: 'alice@acme.test', role: 'approver' });
    try {
      const body = {
        requestId: `req_passkey_globex_${++sequence}`,
        action: 'hold_stock',
        contractVersion: 1,
        args: { sku: 'filter-green', quantity: 1 },
      };
      const { proposal } = await submitAs(t.db, systems.client, seeded.globex, body);
      expect(proposal.status).toBe('pending_approval');
      await decideAs(
        'alice',
        proposal,
        request(proposal, 'approve', await signed('alice', alice.authenticator, proposal, 'approve')),
      );
      const report = await verifyBundle((await buildEvidenceBundle(t.db, 'globex', proposal.id, await commandKeys()))!);
      expect(report.checks.filter((check) => !check.ok)).toEqual([]);
      // Registered in the same transaction as the decision, so on the bundle's chain: the server's binding is proven.
      expect(report.checks.find((check) => check.check === 'passkeys')?.detail).toMatch(
        /with passkey ‘YubiKey 5’ \(signature verified; key registered by the server at #\d+; pin people's keys with `--passkeys people.json` to check it against keys they gave you\)/,
      );
      const registered = await t.db
        .select()
        .from(auditEvents)
        .where(
          and(
            eq(auditEvents.tenantId, 'globex'),
            eq(auditEvents.type, 'passkey.registered'),
            eq(auditEvents.actorId, seeded.world.userId('alice')),
          ),
        );
      expect(registered).toMatchObject([{ reasonCode: 'first_use', data: { credential: alice.authenticator.id } }]);
      // A second signature there adds no second registration.
      const again = await submitAs(t.db, systems.client, seeded.globex, {
        ...body,
        requestId: `req_passkey_globex_${++sequence}`,
      });
      await decideAs(
        'alice',
        again.proposal,
        request(again.proposal, 'approve', await signed('alice', alice.authenticator, again.proposal, 'approve')),
      );
      await chainAllPending(t.db);
      expect(
        await t.db
          .select()
          .from(auditEvents)
          .where(
            and(
              eq(auditEvents.tenantId, 'globex'),
              eq(auditEvents.type, 'passkey.registered'),
              eq(auditEvents.actorId, seeded.world.userId('alice')),
            ),
          ),
      ).toHaveLength(1);
    } finally {
      await t.db
        .delete(memberships)
        .where(and(eq(memberships.tenantId, 'globex'), eq(memberships.userId, seeded.world.userId('alice'))));
    }
  });

  it('refuses a counter that does not move forward (a copied key, a replayed count)', async () => {
    const first = await propose();
    await decideAs(
      'alice',
      first,
      request(first, 'approve', await signed('alice', alice.authenticator, first, 'approve')),
    );
    const seen = alice.authenticator.counter;
    expect(seen).toBeGreaterThan(0);
    const proposal = await propose();
    await expectApiError(
      decideAs(
        'alice',
        proposal,
        request(
          proposal,
          'approve',
          await signed('alice', alice.authenticator, proposal, 'approve', { counter: seen }),
        ),
      ),
      { status: 409, code: 'passkey_counter' },
    );
    await expectApiError(
      decideAs(
        'alice',
        proposal,
        request(
          proposal,
          'approve',
          await signed('alice', alice.authenticator, proposal, 'approve', { counter: seen - 1 }),
        ),
      ),
      { status: 409, code: 'passkey_counter' },
    );
    await unchanged(proposal);
    alice.authenticator.counter = seen;
  });

  it('refuses a statement for another proposal or another decision', async () => {
    const first = await propose();
    const second = await propose();
    const forFirst = await signed('alice', alice.authenticator, first, 'approve');
    await expectApiError(decideAs('alice', second, request(second, 'approve', forFirst)), {
      status: 409,
      code: 'passkey_statement_mismatch',
    });
    await expectApiError(decideAs('alice', first, request(first, 'reject', forFirst)), {
      status: 409,
      code: 'passkey_statement_mismatch',
    });
    await unchanged(first);
    await unchanged(second);
    // A statement the server never issued (its hash was never a challenge) is refused too.
    const made = { ...forFirst.statement, nonce: 'A'.repeat(22) };
    const forged = { statement: made, response: alice.authenticator.assert({ challenge: statementChallenge(made) }) };
    await expectApiError(decideAs('alice', first, request(first, 'approve', forged)), {
      status: 409,
      code: 'passkey_challenge_unknown',
    });
  });

  it('refuses an expired challenge, and a used one', async () => {
    const proposal = await propose();
    const passkey = await signed('alice', alice.authenticator, proposal, 'approve');
    await expectApiError(
      decideAs(
        'alice',
        proposal,
        request(proposal, 'approve', passkey),
        new Date(Date.parse(passkey.statement.expiresAt) + 1),
      ),
      { status: 409, code: 'passkey_challenge_expired' },
    );
    await unchanged(proposal);

    const again = await signed('alice', alice.authenticator, proposal, 'approve');
    const verify = () =>
      t.db.transaction(async (tx) =>
        verifySignedDecision(
          tx,
          { userId: seeded.world.userId('alice'), proposal, decision: 'approve', signed: again, rp: RP },
          new Date(),
        ),
      );
    await verify();
    await expectApiError(verify(), { status: 409, code: 'passkey_challenge_unknown' });
  });

  it("refuses another person's credential", async () => {
    const proposal = await propose();
    const { statement, options } = await challenge('alice', proposal, 'approve');
    await expectApiError(
      decideAs(
        'alice',
        proposal,
        request(proposal, 'approve', { statement, response: bob.authenticator.assert(options) }),
      ),
      { status: 403, code: 'passkey_not_yours' },
    );
    await unchanged(proposal);
  });

  it('refuses an assertion from another origin or without user verification', async () => {
    const proposal = await propose();
    await expectApiError(
      decideAs(
        'alice',
        proposal,
        request(
          proposal,
          'approve',
          await signed('alice', alice.authenticator, proposal, 'approve', { origin: 'http://evil.test' }),
        ),
      ),
      { status: 403, code: 'passkey_invalid' },
    );
    await expectApiError(
      decideAs(
        'alice',
        proposal,
        request(
          proposal,
          'approve',
          await signed('alice', alice.authenticator, proposal, 'approve', { verified: false }),
        ),
      ),
      { status: 403, code: 'passkey_invalid' },
    );
    await unchanged(proposal);
  });

  it('a tenant that requires passkeys refuses every unsigned approval, and an owner’s last passkey is removed only by an admin', async () => {
    await t.db.update(tenants).set({ requirePasskeys: true }).where(eq(tenants.id, 'acme'));
    try {
      const proposal = await propose();
      await expectApiError(decideAs('bob', proposal, request(proposal, 'approve')), {
        status: 403,
        code: 'passkey_required',
      });

      const own = await call('bob', removeOwn, 'DELETE', `/api/v1/me/passkeys/${bob.id}`, undefined, { id: bob.id });
      expect(own).toMatchObject({ status: 409, body: { error: { code: 'last_passkey' } } });
      // Another tenant's admin cannot reach it; an approver is no admin.
      expect(
        (await call('erin', removeAsAdmin, 'DELETE', `/api/v1/admin/passkeys/${bob.id}`, undefined, { id: bob.id }))
          .status,
      ).toBe(403);
      expect(
        (await call('alice', removeAsAdmin, 'DELETE', `/api/v1/admin/passkeys/${bob.id}`, undefined, { id: bob.id }))
          .status,
      ).toBe(403);
      expect(
        (await call('carol', removeAsAdmin, 'DELETE', `/api/v1/admin/passkeys/${bob.id}`, undefined, { id: bob.id }))
          .status,
      ).toBe(200);
      expect((await call('bob', listRoute, 'GET', '/api/v1/me/passkeys')).body.passkeys).toEqual([]);
      await chainAllPending(t.db);
      const [removed] = await t.db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.type, 'passkey.removed'), eq(auditEvents.reasonCode, 'admin_reset')));
      expect(removed).toMatchObject({
        actorId: seeded.world.userId('carol'),
        reasonCode: 'admin_reset',
        data: { user: seeded.world.userId('bob'), credential: bob.authenticator.id, name: 'Laptop' },
      });
    } finally {
      await t.db.update(tenants).set({ requirePasskeys: false }).where(eq(tenants.id, 'acme'));
    }
  });
});

describe('the operator’s commands (npm run cli -- passkeys:…)', () => {
  it('passkeys:require turns the tenant setting on and off, audited; passkeys:remove resets even a last passkey', async () => {
    const cli = { type: 'system' as const, id: 'cli' };
    expect(await setPasskeysRequired(t.db, 'globex', true, cli)).toEqual({ changed: true });
    expect(await setPasskeysRequired(t.db, 'globex', true, cli)).toEqual({ changed: false });
    expect(await setPasskeysRequired(t.db, 'nowhere', true, cli)).toBeUndefined();
    await chainAllPending(t.db);
    const [changed] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, 'globex'), eq(auditEvents.type, 'tenant.settings_changed')));
    expect(changed).toMatchObject({ actorType: 'system', actorId: 'cli', data: { requirePasskeys: true } });

    const erin = await addPasskey('erin', 'Only key');
    expect(
      (await call('erin', removeOwn, 'DELETE', `/api/v1/me/passkeys/${erin.id}`, undefined, { id: erin.id })).body.error
        ?.code,
    ).toBe('last_passkey');
    expect(await removePasskey(t.db, { kind: 'operator' }, erin.id)).toMatchObject({ id: erin.id, name: 'Only key' });
    await expectApiError(removePasskey(t.db, { kind: 'operator' }, erin.id), { status: 404, code: 'not_found' });
    await setPasskeysRequired(t.db, 'globex', false, cli);
  });
});

describe('the passkeys commands as a process', () => {
  // Each run opens its own embedded database (the library functions are tested above).
  it('passkeys:require, passkeys:list and passkeys:remove refuse what does not exist, and a bad setting is a usage error', {
    timeout: 180_000,
  }, async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'passkey-cli-'));
    try {
      expect((await runCli(['passkeys:require', '--tenant', 'initech', 'maybe'], dataDir)).code).toBe(2);
      expect(await runCli(['passkeys:require', '--tenant', 'initech', 'on'], dataDir)).toMatchObject({
        code: 1,
        stderr: 'Error: No tenant "initech".\n',
      });
      expect(await runCli(['passkeys:list', 'nobody@initech.test'], dataDir)).toMatchObject({
        code: 1,
        stderr: 'Error: No user "nobody@initech.test".\n',
      });
      expect(await runCli(['passkeys:remove', 'psk_unknown'], dataDir)).toMatchObject({
        code: 1,
        stderr: 'Error: No passkey with that id.\n',
      });
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});

let signedBundle: EvidenceBundle;

describe('a signed decision in the evidence bundle, offline', () => {
  type Event = EvidenceBundle['events'][number];
  const signedEvent = (bundle: EvidenceBundle) => bundle.events.find((row) => row.type === 'proposal.approved')!;
  /** The approval event with one evidence field changed, re-hashed as someone who can write the file would. */
  const tampered = (field: string, change: (value: string) => string): EvidenceBundle => {
    const bundle = structuredClone(signedBundle);
    const event = signedEvent(bundle);
    const changed: Event = { ...event, data: { ...event.data, [field]: change(event.data[field] as string) } };
    bundle.events = bundle.events.map((row) => (row === event ? { ...changed, hash: rowHash(changed) } : row));
    return bundle;
  };
  /** One byte of a base64url value flipped. */
  const flipByte = (index: number) => (value: string) => {
    const bytes = Buffer.from(value, 'base64url');
    bytes[index] = bytes[index]! ^ 0x01;
    return bytes.toString('base64url');
  };
  const passkeyCheck = async (bundle: EvidenceBundle) =>
    (await verifyBundle(bundle)).checks.find((check) => check.check === 'passkeys')!;

  it.each([
    [
      'the statement',
      'passkeyStatement',
      (value: string) =>
        value.replace(/"nonce":"./, (nonce) => `${nonce.slice(0, -1)}${nonce.endsWith('A') ? 'B' : 'A'}`),
      "challenge is not the statement's hash",
    ],
    ['the client data', 'passkeyClientData', flipByte(2), 'not "webauthn.get"'],
    [
      'the client data’s origin',
      'passkeyClientData',
      (value: string) =>
        Buffer.from(Buffer.from(value, 'base64url').toString().replace(ORIGIN, 'http://countersign.tesu')).toString(
          'base64url',
        ),
      'is not of the relying party',
    ],
    ['the authenticator data', 'passkeyAuthenticatorData', flipByte(36), 'signature does not verify'],
    ['the signature', 'passkeySignature', flipByte(20), 'signature does not verify'],
  ])('fails when a byte of %s changes', async (_what, field, change, reason) => {
    const check = await passkeyCheck(tampered(field, change));
    expect(check.ok).toBe(false);
    expect(check.detail).toContain(reason);
  });

  it('bundle:verify prints who approved with which passkey, offline, and refuses a changed signature', async () => {
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'passkey-bundle-'));
    const noDatabase = path.join(folder, 'no-database');
    const good = path.join(folder, 'good.json');
    const bad = path.join(folder, 'bad.json');
    await fs.writeFile(good, JSON.stringify(signedBundle));
    await fs.writeFile(bad, JSON.stringify(tampered('passkeySignature', flipByte(20))));
    const passed = await runCli(['bundle:verify', good], noDatabase);
    expect(passed.code).toBe(0);
    // The registration came before the proposal's first event: its inclusion proof places it in the log all the same.
    const registered = signedBundle.passkeyRegistrations[0]!.seq;
    expect(registered).toBeLessThan(signedBundle.events[0]!.seq);
    expect(passed.stdout).toContain(
      `ok   inclusion: ${signedBundle.events.length} event(s) of this proposal and 1 passkey ` +
        `registration(s), each included in checkpoint #`,
    );
    expect(passed.stdout).toMatch(
      new RegExp(
        `^ok {3}passkeys: approved by Alice \\(usr_[a-z0-9]+\\) with passkey ‘YubiKey 5’ \\(signature ` +
          `verified; key registered by the server at #${registered}; pin people's keys with \`--passkeys ` +
          `people.json\` to check it against keys they gave you\\)$`,
        'm',
      ),
    );
    expect(passed.stdout).toMatch(
      /^ {2}approved by Alice \(usr_[a-z0-9]+\) with passkey ‘YubiKey 5’ \(signature verified[^\n]*\) at /m,
    );
    expect(passed.stdout).not.toContain('passkeyRegistrations[0]');
    const refused = await runCli(['bundle:verify', bad], noDatabase);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      'with passkey ‘YubiKey 5’ (not verified: the signature does not verify with the registered public key)',
    );
    expect(refused.stderr).toContain('passkeys');
    await expect(fs.stat(noDatabase)).rejects.toThrow();
  });

  it('fails where the rule asked for a passkey and an approval carries none', async () => {
    const bundle = structuredClone(signedBundle);
    expect(bundle.events.find((row) => row.type === 'proposal.created')?.data.passkey).toBe(true);
    const event = signedEvent(bundle);
    const stripped: Event = {
      ...event,
      data: Object.fromEntries(Object.entries(event.data).filter(([field]) => !field.startsWith('passkey'))),
    };
    bundle.events = bundle.events.map((row) => (row === event ? { ...stripped, hash: rowHash(stripped) } : row));
    const check = await passkeyCheck(bundle);
    expect(check).toMatchObject({ ok: false });
    expect(check.detail).toContain('without a passkey, which the routing rule required');
  });

  it('fails without the registration that binds the key to the person', async () => {
    const check = await passkeyCheck({ ...structuredClone(signedBundle), passkeyRegistrations: [] });
    expect(check).toMatchObject({ ok: false });
    expect(check.detail).toContain('passkey.registered');
  });

  it('a registration renamed (and re-hashed) fails: its inclusion proof no longer leads to the checkpoint, and nothing is printed as verified', async () => {
    const bundle = structuredClone(signedBundle);
    const [registration] = bundle.passkeyRegistrations;
    const renamed = { ...registration!, data: { ...registration!.data, name: 'Mallory’s key' } };
    bundle.passkeyRegistrations = [{ ...renamed, hash: rowHash(renamed) }];
    const report = await verifyBundle(bundle);
    expect(report.checks.filter((check) => !check.ok)).toEqual([
      {
        check: 'inclusion',
        ok: false,
        detail:
          `event #${registration!.seq} is not included in checkpoint ` +
          `#${verifyCheckpoint(bundle.checkpoint, bundle.keys).size}: the proof does not lead to its root`,
      },
    ]);
    expect(report.verified).toEqual([]);
  });

  it('bundle:verify --passkeys people.json checks the key against the one the person gave; another key fails', async () => {
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'passkey-people-'));
    const [bundleFile, people, others] = ['bundle.json', 'people.json', 'others.json'].map((name) =>
      path.join(folder, name),
    ) as [string, string, string];
    const aliceId = seeded.world.userId('alice');
    await fs.writeFile(bundleFile, JSON.stringify(signedBundle));
    await fs.writeFile(
      people,
      JSON.stringify({ [aliceId]: { email: 'alice@acme.test', publicKeys: [alice.authenticator.publicKey] } }),
    );
    await fs.writeFile(
      others,
      JSON.stringify({ [aliceId]: { email: 'alice@acme.test', publicKeys: [bob.authenticator.publicKey] } }),
    );
    const pinned = await runCli(['bundle:verify', bundleFile, '--passkeys', people], path.join(folder, 'none'));
    expect(pinned.code).toBe(0);
    expect(pinned.stdout).toContain(
      `with passkey ‘YubiKey 5’ (signature verified with the key people.json gives for ${aliceId} (alice@acme.test))`,
    );
    expect(pinned.stdout).not.toContain('passkeyRegistrations[0]');
    const wrong = await runCli(['bundle:verify', bundleFile, '--passkeys', others], path.join(folder, 'none'));
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain(
      `(not verified: the key is not one people.json gives for ${aliceId} (alice@acme.test))`,
    );
    await fs.writeFile(others, JSON.stringify({ 'alice@acme.test': [alice.authenticator.publicKey] }));
    const malformed = await runCli(['bundle:verify', bundleFile, '--passkeys', others], path.join(folder, 'none'));
    expect(malformed).toMatchObject({ code: 1, stderr: expect.stringContaining('is not a people file') });
  });

  it('every single change to a real passkey-signed bundle fails, or touches only a path printed as not verified (689 cases)', async () => {
    let cases = 0;
    const unnoticed: string[] = [];
    for (const mutation of mutations(signedBundle)) {
      cases += 1;
      const report = await verifyBundle(mutation.document);
      if (report.checks.every((check) => check.ok) && !isUnder(mutation.path, report.unverified))
        unnoticed.push(mutation.name);
    }
    expect(unnoticed).toEqual([]);
    expect(cases).toBe(689);
  });
});
