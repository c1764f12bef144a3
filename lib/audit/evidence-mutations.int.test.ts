import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { executeCommand } from '@/lib/commands/execute';
import { decide } from '@/lib/decisions/decide';
import { type CommandKeys, commandKeys } from '@/lib/signing/keys';
import { A_YEAR_MS } from '@/test/cli';
import { setupTestDatabase } from '@/test/db';
import { approvedCommand, writeClients } from '@/test/fixtures/jobs';
import { submitAs } from '@/test/intake';
import { isUnder, mutations } from '@/test/json-mutations';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';
import { buildEvidenceBundle } from './bundle';
import { type EvidenceBundle, verifyBundle } from './bundle-verify';
import { auditExportStream } from './export';
import { verifyExportLines } from './export-verify';

/**
 * The property that closes the class (issue 35 §2): a verifier vouches only for what a signature or
 * hash covers. Real bundles and exports, made by the server's own code in this test's database, get
 * every single change (test/json-mutations.ts); each must fail verification or touch only a path the
 * verifier prints under "Not verified". Verified with the clock a year ahead: time changes nothing.
 */
const t = setupTestDatabase();
const systems = setupDemoSystems();
const seeded = seededWorld(t);
let keys: CommandKeys;
const bundles: Record<string, EvidenceBundle> = {};
let whole: string[];
let filtered: string[];

beforeAll(async () => {
  keys = await commandKeys();
  const write = writeClients(systems.systems.service.url, systems.systems.credentials);
  const refund = await approvedCommand(
    t.db,
    systems.client,
    seeded.acme,
    seeded.world.userId('alice'),
    {
      requestId: 'req_mutations_refund',
      action: 'issue_refund',
      contractVersion: 1,
      args: { orderId: 'ord_1842', amountMinor: 1500, currency: 'USD', reason: 'Damaged in transit' },
    },
    new Date(),
  );
  await submitAs(t.db, systems.client, seeded.acme, {
    requestId: 'req_mutations_between',
    action: 'hold_stock',
    contractVersion: 1,
    args: { sku: 'filter-blue', quantity: 1 },
  });
  expect(
    (
      await executeCommand(t.db, {
        scope: refund.scope,
        jws: refund.jws,
        systems: systems.client,
        writeClient: write(refund.scope),
        deadlineMs: 1_000,
      })
    ).status,
  ).toBe('succeeded');
  bundles.executed = (await buildEvidenceBundle(t.db, 'acme', refund.proposal.id, keys))!;
  // Approved, then overruled by a rejection; its command refused.
  const overruled = await approvedCommand(
    t.db,
    systems.client,
    seeded.acme,
    seeded.world.userId('alice'),
    {
      requestId: 'req_mutations_overruled',
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 2 },
    },
    new Date(),
  );
  await decide(t.db, systems.client, {
    userId: seeded.world.userId('bob'),
    proposalId: overruled.proposal.id,
    request: { decision: 'reject', payloadHash: overruled.proposal.payloadHash, reason: 'Deny wins' },
  });
  expect(
    (
      await executeCommand(t.db, {
        scope: overruled.scope,
        jws: overruled.jws,
        systems: systems.client,
        writeClient: write(overruled.scope),
        deadlineMs: 1_000,
      })
    ).status,
  ).toBe('failed');
  bundles.overruled = (await buildEvidenceBundle(t.db, 'acme', overruled.proposal.id, keys))!;
  const read = async (selection: Parameters<typeof auditExportStream>[2]) =>
    (await new Response(auditExportStream(t.db, 'acme', selection, 'jsonl', keys)).text()).trimEnd().split('\n');
  whole = await read({ filters: {}, of: 'events' });
  filtered = await read({ filters: { q: refund.proposal.id }, of: 'events' });
  vi.useFakeTimers({ now: Date.now() + A_YEAR_MS, toFake: ['Date'] });
});

afterAll(() => {
  vi.useRealTimers();
});

/** The mutations a verifier let through without failing and without printing their path as not verified. */
async function unnoticedBundleChanges(bundle: EvidenceBundle): Promise<{ cases: number; unnoticed: string[] }> {
  let cases = 0;
  const unnoticed: string[] = [];
  for (const mutation of mutations(bundle)) {
    cases += 1;
    const report = await verifyBundle(mutation.document, keys.jwks);
    if (report.checks.every((check) => check.ok) && !isUnder(mutation.path, report.unverified))
      unnoticed.push(mutation.name);
  }
  return { cases, unnoticed };
}

describe('every single change to a real evidence bundle fails, or touches only what is printed as not verified (clock a year ahead)', () => {
  it.each([
    ['an executed refund', 751, 'executed'],
    ['an approval overruled by a rejection', 736, 'overruled'],
  ] as const)('%s (%i cases)', async (_name, count, which) => {
    const genuine = await verifyBundle(JSON.parse(JSON.stringify(bundles[which])), keys.jwks);
    expect(genuine.checks.filter((check) => !check.ok)).toEqual([]);
    const { cases, unnoticed } = await unnoticedBundleChanges(bundles[which]!);
    expect(unnoticed).toEqual([]);
    expect(cases).toBe(count);
  });
});

/** Export lines as one JSON document (an array of lines), and back. */
const asDocument = (lines: readonly string[]) => lines.map((line) => JSON.parse(line) as unknown);
const asLines = (document: unknown) => (document as unknown[]).map((line) => JSON.stringify(line));

describe('every single change to a real export fails, or touches only what is printed as not verified (clock a year ahead)', () => {
  it('a whole export (1325 cases): any change, dropped, doubled, added, swapped or cut line fails unless it is a not-verified field', async () => {
    expect(await verifyExportLines(whole, { keys: keys.jwks })).toMatchObject({ ok: true });
    let cases = 0;
    const unnoticed: string[] = [];
    for (const mutation of mutations(asDocument(whole))) {
      cases += 1;
      const report = await verifyExportLines(asLines(mutation.document), { keys: keys.jwks });
      const printed = 'unreadable' in report ? [] : report.unverified;
      // A line's fields are printed without the line number: "actorLabel (…)", "keys (…)".
      if (report.ok && !isUnder(mutation.path.slice(1), printed)) unnoticed.push(mutation.name);
    }
    expect(unnoticed).toEqual([]);
    expect(cases).toBe(1325);
  });

  it('a filtered export (603 cases), its rows each with an inclusion proof: any change, dropped, doubled, added, swapped or cut line fails unless it is a not-verified field, and it is never verified as a whole', async () => {
    let cases = 0;
    const unnoticed: string[] = [];
    for (const mutation of mutations(asDocument(filtered))) {
      cases += 1;
      const report = await verifyExportLines(asLines(mutation.document), { keys: keys.jwks });
      if ('kind' in report && report.ok && report.kind === 'whole')
        unnoticed.push(`${mutation.name} (verified as a whole)`);
      else if (report.ok && !isUnder(mutation.path.slice(1), report.unverified)) unnoticed.push(mutation.name);
    }
    expect(unnoticed).toEqual([]);
    expect(cases).toBe(603);
  });
});
