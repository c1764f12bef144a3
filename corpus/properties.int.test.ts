/**
 * Property tests (fast-check, fixed seeds, bounded runs). Valid envelopes are generated from the
 * contracts' bounds and the seeded world; single mutations of them — an extra key at the envelope
 * or argument level, a value of another type, numeric strings, out-of-range numbers and lengths,
 * floats, Unicode look-alikes in enums and patterns, a missing required field — are never
 * accepted by the Shape gate (shapeGate, directly, many runs), nor end to end (readJsonBody and
 * submitProposal, fewer runs); valid ones are never refused by either.
 */
import { count } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proposals } from '@/db/schema';
import type { Refusal } from '@/lib/errors/refusal';
import type { FieldIssue } from '@/lib/input/field-issues';
import { shapeGate } from '@/lib/intake/shape';
import { createTestDatabase, type TestDatabase } from '@/test/db';
import {
  anyMutation,
  type Envelope,
  extraKey,
  float,
  lookalike,
  type Mutated,
  missingRequired,
  numericString,
  outOfRange,
  shapePrincipal,
  typeSwap,
  validEnvelope,
} from './arbitraries';
import { sendToGates } from './run';
import { type CorpusWorld, openCorpusWorld, type Tenant } from './world';

const SHAPE_RUNS = 200;
const END_TO_END_RUNS = 25;
const tenantArb = fc.constantFrom<Tenant>('acme', 'globex');

/** A valid envelope and the tenant whose key sends it. */
const sent = tenantArb.chain((tenant) => validEnvelope(tenant).map((envelope) => ({ tenant, envelope })));

function shapeRefusal(value: unknown, tenant: Tenant): Refusal {
  const verdict = shapeGate(value, shapePrincipal(tenant));
  if (verdict.ok) throw new Error(`the Shape gate accepted ${JSON.stringify(value)}`);
  return verdict.refusal;
}

function expectNamed(refusal: Refusal, mutated: Mutated) {
  expect({ status: refusal.status, kind: refusal.kind }).toEqual({ status: 422, kind: 'schema' });
  const issues = (refusal.details.issues ?? []) as FieldIssue[];
  const named = issues.map((issue) => `${issue.field}:${issue.code}`);
  expect(
    issues.map((issue) => issue.field),
    `${mutated.kind}: ${named.join(', ')}`,
  ).toContain(mutated.field);
  if (mutated.issue) expect(named, mutated.kind).toContain(`${mutated.field}:${mutated.issue}`);
}

describe('the Shape gate (shapeGate), on generated candidates', () => {
  it('accepts every valid envelope, and returns its arguments unchanged (no coercion, no defaults)', () => {
    fc.assert(
      fc.property(sent, ({ tenant, envelope }) => {
        const verdict = shapeGate(envelope, shapePrincipal(tenant));
        if (!verdict.ok) throw new Error(`the Shape gate refused: ${verdict.refusal.code}`);
        const shaped = verdict.value;
        expect(shaped.args).toEqual(envelope.args);
        expect(shaped.envelope.evidenceRefs).toEqual(envelope.evidenceRefs ?? []);
        expect(shaped.action.name).toBe(envelope.action);
      }),
      { seed: 9101, numRuns: SHAPE_RUNS },
    );
  });

  const families: [string, (envelope: Envelope) => fc.Arbitrary<Mutated>, number][] = [
    [
      'an extra key at the envelope or argument level',
      (e) => extraKey(e, fc.string({ unit: 'binary', maxLength: 16 })),
      9102,
    ],
    ['a value of another JSON type in any field', typeSwap, 9103],
    ['a numeric string for an integer', numericString, 9104],
    ['a number or length outside the contract', outOfRange, 9105],
    ['a float for an integer', float, 9106],
    ['a Unicode look-alike in an enum or a pattern', lookalike, 9107],
    ['a required field left out', missingRequired, 9108],
  ];

  it.each(families)('refuses %s, naming the field', (_family, mutate, seed) => {
    fc.assert(
      fc.property(
        sent.chain(({ tenant, envelope }) => mutate(envelope).map((mutated) => ({ tenant, mutated }))),
        ({ tenant, mutated }) => expectNamed(shapeRefusal(mutated.value, tenant), mutated),
      ),
      { seed, numRuns: SHAPE_RUNS },
    );
  });
});

describe('end to end (readJsonBody, then submitProposal on the seeded world)', () => {
  let database: TestDatabase;
  let world: CorpusWorld;
  let sequence = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    world = await openCorpusWorld({ db: database.db });
  });

  afterAll(async () => {
    await world?.close();
    await database?.dispose();
  });

  /** A fresh requestId per generated value, so runs never replay one another. */
  const unique = sent.map(({ tenant, envelope }) => ({
    tenant,
    envelope: { ...envelope, requestId: `p${++sequence}.${envelope.requestId}`.slice(0, 128) },
  }));

  async function proposalCount(): Promise<number> {
    const [row] = await world.db.select({ n: count() }).from(proposals);
    return Number(row?.n ?? 0);
  }

  it('never refuses a valid envelope', async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(unique, async ({ tenant, envelope }) => {
        const verdict = await sendToGates(world, world.keys[tenant], JSON.stringify(envelope));
        expect(
          verdict.outcome === 'rejected'
            ? `${verdict.status} ${verdict.code} ${JSON.stringify(verdict.issues)}`
            : verdict.outcome,
        ).toBe('accepted');
        if (verdict.outcome !== 'accepted') return;
        expect(verdict.status).toBe(201);
        accepted++;
        // Release the refund's claim on the order's balance, so every run starts from the seeded world.
        await world.settle([verdict.proposalId]);
      }),
      { seed: 9201, numRuns: END_TO_END_RUNS },
    );
    expect(accepted).toBe(END_TO_END_RUNS);
  });

  it('never accepts a mutated envelope, and answers with a client error (never a 5xx)', async () => {
    const mutations = unique.chain(({ tenant, envelope }) =>
      anyMutation(envelope).map((mutated) => ({ tenant, mutated })),
    );
    await fc.assert(
      fc.asyncProperty(mutations, async ({ tenant, mutated }) => {
        const before = await proposalCount();
        const verdict = await sendToGates(world, world.keys[tenant], JSON.stringify(mutated.value));
        expect(verdict.outcome === 'crashed' ? verdict.message : verdict.outcome, mutated.kind).toBe('rejected');
        if (verdict.outcome === 'rejected') {
          expect(verdict.status, `${mutated.kind}: ${verdict.code}`).toBeGreaterThanOrEqual(400);
          expect(verdict.status, `${mutated.kind}: ${verdict.code}`).toBeLessThan(500);
        }
        expect(await proposalCount()).toBe(before);
      }),
      { seed: 9202, numRuns: END_TO_END_RUNS * 3 },
    );
  });
});
