import { expect, test } from '@playwright/test';
import { agentKey, apiSession, proposeHold } from './support';

const PAGES = ['/', '/history', '/contracts', '/settings', '/proposals/prp_doesnotexist'];

test.describe('without a session', () => {
  for (const path of PAGES) {
    test(`page ${path} redirects to sign-in`, async ({ request }) => {
      const response = await request.get(path, { maxRedirects: 0 });
      expect(response.status()).toBe(307);
      expect(response.headers().location).toContain(`/signin?callbackUrl=${encodeURIComponent(path)}`);
    });
  }

  const ROUTES: [string, string][] = [
    ['GET', '/api/v1/proposals/prp_x'],
    ['POST', '/api/v1/proposals'],
    ['POST', '/api/v1/proposals/prp_x/decisions'],
    ['GET', '/api/v1/queue'],
  ];
  for (const [method, path] of ROUTES) {
    test(`${method} ${path} answers 401`, async ({ request, baseURL }) => {
      const response = await request.fetch(path, {
        method,
        headers: { origin: baseURL!, 'content-type': 'application/json' },
        data: method === 'POST' ? '{}' : undefined,
      });
      expect(response.status()).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthenticated');
    });
  }

  test('health is open and reports the database', async ({ request }) => {
    const response = await request.get('/api/health');
    expect(response.status()).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok', database: { reachable: true } });
  });
});

test('an agent key never grants dashboard access', async ({ request, baseURL }) => {
  const key = agentKey('acme');
  const proposal = await proposeHold(request, 'acme');
  const page = await request.get('/', { headers: { authorization: `Bearer ${key}` }, maxRedirects: 0 });
  expect(page.status()).toBe(307);
  const decision = await request.post(`/api/v1/proposals/${proposal.id}/decisions`, {
    headers: { authorization: `Bearer ${key}`, origin: baseURL! },
    data: { decision: 'approve', payloadHash: proposal.payloadHash },
  });
  expect(decision.status()).toBe(401);
  const queue = await request.get('/api/v1/queue', { headers: { authorization: `Bearer ${key}` } });
  expect(queue.status()).toBe(401);
  // The agent can read its own proposal, without the operator-only fields.
  const read = await request.get(`/api/v1/proposals/${proposal.id}`, { headers: { authorization: `Bearer ${key}` } });
  expect(read.status()).toBe(200);
  const body = (await read.json()) as Record<string, unknown>;
  expect(body.status).toBe('pending_approval');
  expect(body).not.toHaveProperty('rawCandidate');
});

test('a session never grants agent API access', async ({ baseURL }) => {
  const alice = await apiSession(baseURL!, 'alice@acme.test');
  const response = await alice.post('/api/v1/proposals', {
    headers: { 'content-type': 'application/json' },
    data: {
      requestId: 'session-try',
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 1 },
    },
  });
  expect(response.status()).toBe(401);
  await alice.dispose();
});

test('a viewer cannot approve through a direct POST', async ({ baseURL, request }) => {
  const proposal = await proposeHold(request, 'acme');
  const dave = await apiSession(baseURL!, 'dave@acme.test');
  const response = await dave.post(`/api/v1/proposals/${proposal.id}/decisions`, {
    headers: { origin: baseURL! },
    data: { decision: 'approve', payloadHash: proposal.payloadHash },
  });
  expect(response.status()).toBe(403);
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe('forbidden_role');
  const after = await dave.get(`/api/v1/proposals/${proposal.id}`);
  expect(((await after.json()) as { status: string; decisions: unknown[] }).decisions).toEqual([]);
  await dave.dispose();
});

test('decisions through the operator API: hash, origin, tenant and replay are enforced', async ({
  baseURL,
  request,
}) => {
  const proposal = await proposeHold(request, 'acme');
  const alice = await apiSession(baseURL!, 'alice@acme.test');
  const erin = await apiSession(baseURL!, 'erin@globex.test');
  const decide = (api: typeof alice, data: unknown, origin = baseURL!) =>
    api.post(`/api/v1/proposals/${proposal.id}/decisions`, {
      headers: { origin, 'content-type': 'application/json' },
      data: data as Record<string, unknown>,
    });
  const code = async (response: Awaited<ReturnType<typeof decide>>) =>
    ((await response.json()) as { error: { code: string } }).error.code;

  const crossSite = await decide(
    alice,
    { decision: 'approve', payloadHash: proposal.payloadHash },
    'https://evil.test',
  );
  expect([crossSite.status(), await code(crossSite)]).toEqual([403, 'cross_origin']);

  const foreign = await decide(erin, { decision: 'approve', payloadHash: proposal.payloadHash });
  expect([foreign.status(), await code(foreign)]).toEqual([404, 'not_found']);
  const foreignRead = await erin.get(`/api/v1/proposals/${proposal.id}`);
  expect(foreignRead.status()).toBe(404);

  const wrongHash = await decide(alice, { decision: 'approve', payloadHash: `sha256:${'0'.repeat(64)}` });
  expect([wrongHash.status(), await code(wrongHash)]).toEqual([409, 'hash_mismatch']);

  const smuggled = await decide(alice, { decision: 'approve', payloadHash: proposal.payloadHash, approvedBy: 'carol' });
  expect([smuggled.status(), await code(smuggled)]).toEqual([422, 'invalid_decision']);

  const noReason = await decide(alice, { decision: 'reject', payloadHash: proposal.payloadHash });
  expect([noReason.status(), await code(noReason)]).toEqual([422, 'invalid_decision']);

  const ok = await decide(alice, { decision: 'approve', payloadHash: proposal.payloadHash });
  expect(ok.status()).toBe(200);
  const detail = (await ok.json()) as {
    status: string;
    payloadHash: string;
    rawCandidate: string;
    decisions: { decision: string }[];
  };
  expect(detail.status).toBe('approved');
  expect(detail.payloadHash).toBe(proposal.payloadHash);
  expect(typeof detail.rawCandidate).toBe('string');

  const replay = await decide(alice, { decision: 'approve', payloadHash: proposal.payloadHash });
  expect([replay.status(), await code(replay)]).toEqual([409, 'already_decided']);
  await Promise.all([alice.dispose(), erin.dispose()]);
});

test('mutation routes refuse GET (no state change through a link or a prefetch)', async ({ baseURL, request }) => {
  const proposal = await proposeHold(request, 'acme');
  const alice = await apiSession(baseURL!, 'alice@acme.test');
  for (const verb of ['decisions', 'extend', 'revisions', 'recheck']) {
    const response = await alice.get(`/api/v1/proposals/${proposal.id}/${verb}`);
    expect(response.status(), verb).toBe(405);
  }
  const after = (await (await alice.get(`/api/v1/proposals/${proposal.id}`)).json()) as {
    status: string;
    decisions: unknown[];
  };
  expect(after).toMatchObject({ status: 'pending_approval', decisions: [] });
  await alice.dispose();
});
