/**
 * The log's routes as Next calls them (GET /api/v1/audit/checkpoint, /api/v1/audit/proofs/*): the
 * session's person and tenant are mocked (next-auth does not load outside Next); the database, the
 * routes and the checks below them are real. What they answer verifies offline with the public keys
 * only, a year later.
 */
import { asc, eq } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GET as checkpoint } from '@/app/api/v1/audit/checkpoint/route';
import { GET as consistency } from '@/app/api/v1/audit/proofs/consistency/route';
import { GET as inclusion } from '@/app/api/v1/audit/proofs/inclusion/route';
import { auditEvents } from '@/db/schema';
import { createUser } from '@/lib/admin/accounts';
import { checkpointFileSchema, verifyCheckpoint as verifyJwsCheckpoint } from '@/lib/audit/checkpoint';
import { submitAs } from '@/test/intake';
import { routeSession } from '@/test/route-session';
import { ROUTE_ORIGIN, setupRouteWorld } from '@/test/route-world';
import { verifyCheckpoint } from './note';
import {
  type ConsistencyProofFile,
  type InclusionProofFile,
  verifyCheckpointConsistency,
  verifyEventInclusion,
} from './proofs';

vi.mock('@/lib/auth', async () => (await import('@/test/route-session')).mockedAuth);
vi.mock('next/headers', async () => (await import('@/test/route-session')).mockedHeaders);

const { t, systems: systemsOfRecord, seeded, as } = await setupRouteWorld();
const ORIGIN = ROUTE_ORIGIN;
let outsiderId = '';
let sequence = 0;

async function propose(tenant: 'acme' | 'globex' = 'acme'): Promise<void> {
  const body = {
    requestId: `req_tlog_routes_${++sequence}`,
    action: 'hold_stock',
    contractVersion: 1,
    args: { sku: tenant === 'acme' ? 'filter-blue' : 'filter-green', quantity: 1 },
  };
  await submitAs(t.db, systemsOfRecord.client, tenant === 'acme' ? seeded.acme : seeded.globex, body);
}

beforeAll(async () => {
  await propose();
  outsiderId = (await createUser(t.db, { email: 'outsider-tlog@example.test', name: 'Outsider' })).id;
});

afterEach(() => {
  vi.useRealTimers();
});

type Saved = {
  tenant: string;
  seq: number;
  origin: string;
  note: string;
  checkpoint: string;
  keys: { kid: string; x: string; kty: 'OKP'; crv: 'Ed25519'; alg: 'EdDSA'; use: 'sig' }[];
};
const getCheckpoint = async () => {
  const response = await checkpoint(new Request(`${ORIGIN}/api/v1/audit/checkpoint`));
  return { status: response.status, body: (await response.json()) as Saved & { error?: { code: string } } };
};
const getProof = async <T>(route: typeof inclusion, path: string, query: string) => {
  const response = await route(new Request(`${ORIGIN}/api/v1/audit/proofs/${path}${query}`));
  return {
    status: response.status,
    body: (await response.json()) as T & { error?: { code: string; messages?: string[] } },
  };
};
const eventsOf = (tenantId: string) =>
  t.db.select().from(auditEvents).where(eq(auditEvents.tenantId, tenantId)).orderBy(asc(auditEvents.seq));

describe('GET /api/v1/audit/checkpoint', () => {
  it('answers the JWS as before and the same head as a signed note of the RFC 6962 root', async () => {
    as('dave');
    const { status, body } = await getCheckpoint();
    expect(status).toBe(200);
    expect(body.origin).toBe('localhost/countersign/acme');
    expect(body.note.split('\n').slice(0, 2)).toEqual(['localhost/countersign/acme', String(body.seq)]);
    expect((await verifyJwsCheckpoint(body.checkpoint, body.keys)).seq).toBe(body.seq);
    expect(verifyCheckpoint(body.note, body.keys, 'localhost/countersign/acme').size).toBe(body.seq);
    expect(body.seq).toBe((await eventsOf('acme')).length);
    // Saved as a file, it reads back with the note the verifiers check.
    expect(checkpointFileSchema.parse(JSON.parse(JSON.stringify(body))).note).toBe(body.note);
  });

  it('refuses no session (401), an agent key (401) and a person in no tenant (403)', async () => {
    as(undefined);
    expect((await getCheckpoint()).status).toBe(401);
    as('dave');
    const withKey = await checkpoint(
      new Request(`${ORIGIN}/api/v1/audit/checkpoint`, {
        headers: { authorization: `Bearer ${seeded.world.agentKey('acme')}` },
      }),
    );
    expect(withKey.status).toBe(401);
    routeSession.userId = outsiderId;
    expect(await getCheckpoint()).toMatchObject({ status: 403, body: { error: { code: 'forbidden' } } });
  });
});

describe('an auditor with two checkpoints and the proofs', () => {
  it('proves every event included and the later checkpoint consistent with the earlier, offline a year later', async () => {
    as('dave');
    const earlier = (await getCheckpoint()).body;
    await propose();
    await propose('globex');
    await propose();
    const later = (await getCheckpoint()).body;
    expect(later.seq).toBeGreaterThan(earlier.seq);
    const inclusions: InclusionProofFile[] = [];
    for (let seq = 1; seq <= later.seq; seq++) {
      const { status, body } = await getProof<InclusionProofFile>(
        inclusion,
        'inclusion',
        `?seq=${seq}&size=${later.seq}`,
      );
      expect(status).toBe(200);
      inclusions.push(body);
    }
    const { status, body: proof } = await getProof<ConsistencyProofFile>(
      consistency,
      'consistency',
      `?from=${earlier.seq}&to=${later.seq}`,
    );
    expect(status).toBe(200);
    const events = await eventsOf('acme');

    vi.useFakeTimers({ now: Date.now() + 366 * 24 * 3_600_000 });
    const keys = JSON.parse(JSON.stringify(later.keys)) as Saved['keys'];
    const first = verifyCheckpoint(earlier.note, keys, 'localhost/countersign/acme');
    const second = verifyCheckpoint(later.note, keys, 'localhost/countersign/acme');
    events.forEach((event, i) => verifyEventInclusion(event, inclusions[i]!, second));
    verifyCheckpointConsistency(first, second, proof);
    // A proof of one event does not prove another, and a rolled-back checkpoint is caught.
    expect(() => verifyEventInclusion(events[0]!, inclusions[1]!, second)).toThrow(
      'the inclusion proof is of event #2, not #1',
    );
    expect(() => verifyEventInclusion({ ...events[1]!, hash: events[0]!.hash }, inclusions[1]!, second)).toThrow(
      'event #2 is not included in checkpoint',
    );
    expect(() => verifyCheckpointConsistency(second, first, proof)).toThrow('the log was rolled back');
    expect(() => verifyCheckpointConsistency(first, { ...second, rootHash: first.rootHash }, proof)).toThrow(
      'the log was forked or rewritten',
    );
  });

  it('keeps tenants apart: globex’s member gets globex’s log', async () => {
    as('erin');
    const { body } = await getCheckpoint();
    expect(body.origin).toBe('localhost/countersign/globex');
    expect(body.seq).toBe((await eventsOf('globex')).length);
    const { status, body: error } = await getProof(
      inclusion,
      'inclusion',
      `?seq=1&size=${(await eventsOf('acme')).length}`,
    );
    expect(status).toBe(400);
    expect(error.error?.messages?.join(' ')).toContain(`the log has ${body.seq} event(s)`);
  });
});

describe('closed queries', () => {
  it.each([
    ['inclusion', '', ['seq must be a whole number from 1.', 'size must be a whole number from 1.']],
    ['inclusion', '?seq=1', ['size must be a whole number from 1.']],
    ['inclusion', '?seq=1&size=2&tenant=globex', ['Unknown query parameter "tenant"; use seq and size.']],
    ['inclusion', '?seq=1&seq=2&size=2', ['seq is given more than once.']],
    ['inclusion', '?seq=0&size=2', ['seq must be a whole number from 1.']],
    ['inclusion', '?seq=1.5&size=2', ['seq must be a whole number from 1.']],
    ['inclusion', '?seq=-1&size=2', ['seq must be a whole number from 1.']],
    ['inclusion', '?seq=1e3&size=2', ['seq must be a whole number from 1.']],
    ['inclusion', '?seq=3&size=2', ['event #3 is not in a tree of 2 event(s).']],
    ['inclusion', '?seq=1&size=999999', ['the log has']],
    ['consistency', '?from=2&to=1', ['the earlier size (2) is larger than the later one (1).']],
    ['consistency', '?from=0&to=1', ['from must be a whole number from 1.']],
    ['consistency', '?from=1&to=2&to=3', ['to is given more than once.']],
    ['consistency', '?from=1&to=2&x=1', ['Unknown query parameter "x"; use from and to.']],
    ['consistency', '?from=1&to=999999', ['the log has']],
  ])('%s%s is a 400 invalid_query that says why', async (path, query, messages) => {
    as('dave');
    const { status, body } = await getProof(path === 'inclusion' ? inclusion : consistency, path, query);
    expect(status).toBe(400);
    expect(body.error?.code).toBe('invalid_query');
    for (const message of messages) expect(body.error?.messages?.join(' ')).toContain(message);
  });

  it('refuses no session and an agent key (401)', async () => {
    as(undefined);
    expect((await getProof(inclusion, 'inclusion', '?seq=1&size=1')).status).toBe(401);
    as('dave');
    const withKey = await consistency(
      new Request(`${ORIGIN}/api/v1/audit/proofs/consistency?from=1&to=1`, {
        headers: { authorization: `Bearer ${seeded.world.agentKey('acme')}` },
      }),
    );
    expect(withKey.status).toBe(401);
  });
});
