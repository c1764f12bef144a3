import { createHash } from 'node:crypto';
import { type APIRequestContext, expect, test } from '@playwright/test';
import { canonicalize } from 'json-canonicalize';
import { agentKey, signInWithForm, uniqueRequestId } from './support';

const post = (api: APIRequestContext, body: string, headers: Record<string, string> = {}) =>
  api.post('/api/v1/proposals', {
    headers: { authorization: `Bearer ${agentKey('acme')}`, 'content-type': 'application/json', ...headers },
    data: Buffer.from(body),
  }); // raw bytes: Playwright would re-encode an invalid JSON string

const envelope = (args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ requestId: uniqueRequestId('intake'), action: 'hold_stock', contractVersion: 1, args, ...extra });

test.describe('the agent API refuses malformed bodies before the contract, over real HTTP', () => {
  const deep = `{"requestId":"deep","action":"hold_stock","contractVersion":1,"args":{"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`;
  const cases: [string, string, Record<string, string>, number, string][] = [
    ['wrong content type', '{}', { 'content-type': 'text/plain' }, 415, 'unsupported_media_type'],
    ['not JSON', '{"requestId":', {}, 400, 'invalid_json'],
    ['a duplicate key', '{"requestId":"a","requestId":"b"}', {}, 400, 'duplicate_key'],
    ['a __proto__ key', '{"args":{"__proto__":{"admin":true}}}', {}, 400, 'forbidden_key'],
    ['a lone surrogate', '{"requestId":"\\ud800"}', {}, 400, 'lone_surrogate'],
    ['10,000 levels of nesting', deep, {}, 400, 'too_deep'],
    ['more than 64 KiB', JSON.stringify({ pad: 'x'.repeat(70_000) }), {}, 413, 'too_large'],
  ];
  for (const [name, body, headers, status, code] of cases) {
    test(name, async ({ request }) => {
      const response = await post(request, body, headers);
      expect(response.status()).toBe(status);
      expect(await response.json()).toMatchObject({ error: { kind: 'malformed', code } });
    });
  }

  test('the server is unharmed afterwards', async ({ request }) => {
    expect((await request.get('/api/health')).status()).toBe(200);
    expect((await post(request, envelope({ sku: 'filter-blue', quantity: 1 }))).status()).toBe(201);
  });
});

test('a missing SKU and another tenant’s SKU get byte-identical answers', async ({ request }) => {
  const missing = await post(request, envelope({ sku: 'no-such-sku', quantity: 1 }));
  const foreign = await post(request, envelope({ sku: 'filter-green', quantity: 1 }));
  const outOfScope = await post(request, envelope({ sku: 'filter-red', quantity: 1 }));
  expect([missing.status(), foreign.status(), outOfScope.status()]).toEqual([403, 403, 403]);
  const bodies = await Promise.all([missing.text(), foreign.text(), outOfScope.text()]);
  expect(new Set(bodies).size).toBe(1);
  expect(JSON.parse(bodies[0]!)).toMatchObject({ error: { kind: 'authorization', code: 'not_authorized' } });
});

test('contract errors name each field and say how many repairs are left', async ({ request }) => {
  const response = await post(
    request,
    envelope({ sku: 'filter-blue', quantity: '2', warehouse: 'south' }, { tenantId: 'globex' }),
  );
  expect(response.status()).toBe(422);
  const body = (await response.json()) as {
    error: {
      kind: string;
      issues: { field: string; code: string }[];
      repair: { allowed: boolean; attemptsLeft: number };
    };
  };
  expect(body.error.kind).toBe('schema');
  expect(body.error.issues.map((i) => `${i.field}:${i.code}`).sort()).toEqual([
    'quantity:invalid_type',
    'tenantId:unknown_field',
    'warehouse:unknown_field',
  ]);
  expect(body.error.repair).toMatchObject({ allowed: true, attemptsLeft: 3 });
});

test('contracts are served as JSON Schema to agents and operators only', async ({ request, playwright, baseURL }) => {
  const anonymous = await playwright.request.newContext({ baseURL });
  expect((await anonymous.get('/api/v1/contracts')).status()).toBe(401);
  await anonymous.dispose();
  const response = await request.get('/api/v1/contracts', { headers: { authorization: `Bearer ${agentKey('acme')}` } });
  expect(response.status()).toBe(200);
  const body = (await response.json()) as {
    actions: { action: string; versions: { input: { $schema: string }; output: object }[] }[];
  };
  // The shipped actions, and any the tenant declared (other specs publish some).
  expect(body.actions.map((a) => a.action)).toEqual(expect.arrayContaining(['hold_stock', 'issue_refund']));
  for (const action of body.actions)
    expect(action.versions[0]!.input.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
});

test('an exhausted repair chain is shown to operators with the original request', async ({ page, request }) => {
  const root = uniqueRequestId('chain');
  const bad = (requestId: string, repairOf?: string) =>
    JSON.stringify({
      requestId,
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 9 },
      ...(repairOf ? { repairOf } : {}),
    });
  expect((await post(request, bad(root))).status()).toBe(422);
  let previous = root;
  for (let n = 1; n <= 3; n++) {
    const next = `${root}-r${n}`;
    expect((await post(request, bad(next, previous))).status()).toBe(422);
    previous = next;
  }
  const exhausted = await post(request, bad(`${root}-r4`, previous));
  expect(exhausted.status()).toBe(422);
  expect(await exhausted.json()).toMatchObject({
    error: { code: 'repair_limit_reached', repair: { allowed: false, attemptsLeft: 0 } },
  });

  await page.goto('/contracts/attempts?exhausted=1');
  await signInWithForm(page, 'carol@acme.test');
  const item = page.locator('[data-testid="attempt"][data-code="repair_limit_reached"]').first();
  await expect(item).toBeVisible();
  await item.getByTestId('attempt-chain').locator('summary').click();
  await expect(item.getByTestId('attempt-chain')).toContainText(`Repair chain of ${root}: 5 attempts`);
  await expect(item.getByTestId('attempt-chain')).toContainText(`"requestId":"${root}"`);
});

test('anyone can recompute the payload hash from GET /api/v1/proposals/:id with another RFC 8785 library', async ({
  request,
}) => {
  const created = await post(
    request,
    JSON.stringify({
      requestId: uniqueRequestId('hash'),
      action: 'issue_refund',
      contractVersion: 1,
      args: {
        orderId: 'ord_1843',
        amountMinor: 1234,
        currency: 'EUR',
        reason: 'Colis abîmé — « remboursement » partiel',
      },
      evidenceRefs: ['ticket_message_73'],
    }),
  );
  expect(created.status()).toBe(201);
  const { proposal } = (await created.json()) as { proposal: { id: string; payloadHash: string } };
  const read = await request.get(`/api/v1/proposals/${proposal.id}`, {
    headers: { authorization: `Bearer ${agentKey('acme')}` },
  });
  const { payload, payloadHash } = (await read.json()) as { payload: unknown; payloadHash: string };
  expect(payloadHash).toBe(proposal.payloadHash);
  expect(`sha256:${createHash('sha256').update(canonicalize(payload), 'utf8').digest('hex')}`).toBe(payloadHash);
});

test('the proposal page names what the contract filled in that the agent did not send', async ({ page, request }) => {
  const created = await post(
    request,
    JSON.stringify({
      requestId: uniqueRequestId('defaults'),
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 1 },
    }),
  );
  expect(created.status()).toBe(201);
  const { proposal } = (await created.json()) as { proposal: { id: string } };
  await page.goto(`/proposals/${proposal.id}`);
  await signInWithForm(page, 'dave@acme.test');
  await expect(page.getByTestId('applied-defaults')).toContainText('evidenceRefs = []');
});
