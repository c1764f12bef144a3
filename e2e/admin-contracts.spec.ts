import path from 'node:path';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { violations } from './axe';
import { agentKey, apiSession, eachLook, signInWithForm, uniqueRequestId } from './support';

/**
 * Contract rollout in the dashboard against the production server: carol (admin) promotes
 * hold_stock v2, sets a sunset on v1 and retires it, and agents feel each step; alice (approver) is
 * refused. Other specs propose hold_stock v1, so the test ends by restoring v1 current, v2 shadow.
 */

const API = '/api/v1/admin/contracts';
const dir = process.env.SCREENSHOT_DIR ?? 'test-results/screenshots';

type Version = {
  version: number;
  status: string;
  since: string | null;
  sunsetAt: string | null;
  senders: { agentName: string; lastAt: string; attempts: number }[];
};
type Rollout = { actions: { action: string; versions: Version[] }[] };

const hold = (request: APIRequestContext, args: Record<string, unknown>, contractVersion = 1) =>
  request.post('/api/v1/proposals', {
    headers: { authorization: `Bearer ${agentKey('acme')}`, 'content-type': 'application/json' },
    data: { requestId: uniqueRequestId('rollout'), action: 'hold_stock', contractVersion, args, evidenceRefs: [] },
  });

async function holdStock(api: APIRequestContext): Promise<Record<number, Version>> {
  const response = await api.get(API);
  expect(response.status()).toBe(200);
  const body = (await response.json()) as Rollout;
  return Object.fromEntries(body.actions.find((a) => a.action === 'hold_stock')!.versions.map((v) => [v.version, v]));
}

/** Back to the module defaults' behaviour (v1 current, v2 shadow), from wherever a failed run stopped. */
async function restore(api: APIRequestContext, origin: string) {
  const move = async (version: number, status: string) => {
    const response = await api.post(`${API}/hold_stock/${version}`, { headers: { origin }, data: { status } });
    expect(response.status(), await response.text()).toBe(200);
  };
  let versions = await holdStock(api);
  if (versions[1]!.status === 'retired') await move(1, 'supported');
  if (versions[1]!.status !== 'current') await move(1, 'current');
  versions = await holdStock(api);
  if (versions[2]!.status === 'supported') await move(2, 'retired');
  if (versions[2]!.status !== 'shadow') await move(2, 'shadow');
  versions = await holdStock(api);
  expect([versions[1]!.status, versions[1]!.sunsetAt, versions[2]!.status]).toEqual(['current', null, 'shadow']);
}

const version = (page: Page, v: number) => page.getByTestId(`version-hold_stock-v${v}`);
const measured = (page: Page, v: number, what: string) =>
  page.getByTestId('measurements-hold_stock').getByTestId(`measure-v${v}`).getByTestId(what);
const count = async (page: Page, v: number, what: string) => Number(await measured(page, v, what).textContent());

test('an admin promotes, sunsets and retires a contract version in the dashboard; agents feel each step', async ({
  page,
  request,
  baseURL,
}) => {
  await page.goto('/contracts?window=1h');
  await signInWithForm(page, 'carol@acme.test');
  await expect(page.getByTestId('contract-hold_stock')).toBeVisible();
  try {
    // The measurements count what agents send, by kind: one accepted, one schema, one business-rule refusal.
    const before = {
      attempts: await count(page, 1, 'm-attempts'),
      accepted: await count(page, 1, 'm-accepted'),
      schema: await count(page, 1, 'm-schema'),
      business: await count(page, 1, 'm-business'),
    };
    expect((await hold(request, { sku: 'filter-blue', quantity: 1 })).status()).toBe(201);
    expect((await hold(request, { sku: 'filter-blue', quantity: 9 })).status()).toBe(422);
    expect((await hold(request, { sku: 'filter-gray', quantity: 3 })).status()).toBe(422);
    await page.reload();
    await expect(measured(page, 1, 'm-attempts')).toHaveText(String(before.attempts + 3));
    await expect(measured(page, 1, 'm-accepted')).toHaveText(String(before.accepted + 1));
    await expect(measured(page, 1, 'm-schema')).toHaveText(String(before.schema + 1));
    await expect(measured(page, 1, 'm-business')).toHaveText(String(before.business + 1));
    await expect(page.getByTestId('shadow-v2').getByTestId('shadow-evaluated')).not.toHaveText('0');
    await expect(page.getByTestId('rate-chart-hold_stock').locator('.recharts-wrapper')).toBeVisible();
    await expect(page.getByTestId('fields-chart-hold_stock').locator('.recharts-bar-rectangle').first()).toBeVisible();
    await expect(page.getByTestId('corpus-figures')).toBeVisible();

    // The page lists the agents still sending v1 (the specs before this one made agents of their own that send it too).
    const supportBot = version(page, 1).getByTestId('sender').filter({ hasText: 'acme-support-bot' });
    await expect(supportBot).toHaveCount(1);

    // What strict model runtimes make of v1's schema: no error; the length bounds some of them drop, named.
    const lint = version(page, 1).getByTestId('contract-lint');
    await expect(lint).toHaveAttribute('data-errors', '0');
    await lint.locator('summary').click();
    await expect(lint.locator('[data-code="dropped_keyword"]', { hasText: '"maxLength"' })).toContainText(
      'OpenAI structured outputs',
    );

    // Promote v2: v1 becomes supported, and v1 users are told it is deprecated.
    await version(page, 2).getByTestId('promote').click();
    await expect(version(page, 2).getByTestId('contract-status')).toHaveText('current');
    await expect(version(page, 1).getByTestId('contract-status')).toHaveText('supported');
    const deprecated = await hold(request, { sku: 'filter-blue', quantity: 1 });
    expect(deprecated.status()).toBe(201);
    expect(deprecated.headers()['deprecation']).toMatch(/^@\d+$/);
    expect(deprecated.headers()['sunset']).toBeUndefined();
    const current = await hold(request, { sku: 'filter-blue', quantity: 1 }, 2);
    expect(current.status()).toBe(201);
    expect(current.headers()['deprecation']).toBeUndefined();

    // A sunset on v1: Sunset (an HTTP-date) beside Deprecation.
    await version(page, 1).getByTestId('sunset-input').fill('2031-06-30T12:00');
    await version(page, 1).getByTestId('set-sunset').click();
    await expect(version(page, 1).getByTestId('sunset')).toBeVisible();
    const { sunsetAt } = (await holdStock(page.request))[1]!;
    expect(sunsetAt).not.toBeNull();
    const sunset = await hold(request, { sku: 'filter-blue', quantity: 1 });
    expect(sunset.status()).toBe(201);
    expect(sunset.headers()['sunset']).toBe(new Date(sunsetAt!).toUTCString());
    expect(sunset.headers()['deprecation']).toBe(deprecated.headers()['deprecation']);
    const read = await request.get(
      `/api/v1/proposals/${((await sunset.json()) as { proposal: { id: string } }).proposal.id}`,
      { headers: { authorization: `Bearer ${agentKey('acme')}` } },
    );
    expect(read.headers()['sunset']).toBe(new Date(sunsetAt!).toUTCString());

    // Retiring v2 (current) is refused with a clear code; retiring v1 is confirmed once more.
    const refused = await page.request.post(`${API}/hold_stock/2`, {
      headers: { origin: baseURL! },
      data: { status: 'retired' },
    });
    expect(refused.status()).toBe(409);
    expect(await refused.json()).toMatchObject({ error: { code: 'cannot_retire_current' } });
    await version(page, 1).getByTestId('retire').click();
    await version(page, 1).getByTestId('confirm-retire').click();
    await expect(version(page, 1).getByTestId('contract-status')).toHaveText('retired');
    const retired = await hold(request, { sku: 'filter-blue', quantity: 1 });
    expect(retired.status()).toBe(422);
    expect(await retired.json()).toMatchObject({
      error: { kind: 'schema', code: 'unsupported_contract_version', supportedVersions: [2] },
    });
    // The agents that still sent v1 stay listed, so an admin knows whom retiring it breaks.
    await page.reload();
    await expect(supportBot).toHaveCount(1);

    // An approver cannot change the rollout, nor read it.
    const alice = await apiSession(baseURL!, 'alice@acme.test');
    const forbidden = await alice.post(`${API}/hold_stock/1`, {
      headers: { origin: baseURL! },
      data: { status: 'supported' },
    });
    expect(forbidden.status()).toBe(403);
    expect(await forbidden.json()).toMatchObject({ error: { code: 'forbidden' } });
    expect((await alice.get(API)).status()).toBe(403);
    await alice.dispose();
  } finally {
    await restore(page.request, baseURL!);
  }
  expect((await hold(request, { sku: 'filter-blue', quantity: 1 })).headers()['deprecation']).toBeUndefined();
  expect((await hold(request, { sku: 'filter-blue', quantity: 1 }, 2)).status()).toBe(422);
});

/** How far the page is wider than the viewport (0 or less: no sideways scrolling). */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** A declared action whose services sit at the origin the e2e server allows (playwright.config.ts). */
const SERVICES = 'http://127.0.0.1:4795';
const DECLARED = 'e2e_restart_service';

function declared(require: string, message = 'Only a running service can be restarted.', reason = false) {
  const properties = {
    service: { type: 'string', minLength: 1, maxLength: 64 },
    ...(reason ? { reason: { type: 'string', minLength: 1, maxLength: 200 } } : {}),
  };
  return {
    name: DECLARED,
    title: 'Restart service (e2e)',
    scope: 'e2e_deployments',
    contracts: [
      {
        version: 1,
        status: 'current',
        args: {
          type: 'object',
          properties,
          required: Object.keys(properties),
          additionalProperties: false,
        },
        receipt: {
          type: 'object',
          properties: { id: { type: 'string', minLength: 1, maxLength: 64 } },
          required: ['id'],
          additionalProperties: false,
        },
      },
    ],
    resolve: `${SERVICES}/actions/${DECLARED}/resolve`,
    rules: [{ code: 'service_not_running', require, message }],
    authority: { grants: [], require: 'true' },
    summary: { template: 'Restart {service}' },
    executor: `${SERVICES}/actions/${DECLARED}/execute`,
  };
}

test('an admin plans a definition (its problem by path), publishes it with a note, then its next version', async ({
  page,
}) => {
  await page.goto('/contracts');
  await signInWithForm(page, 'carol@acme.test');
  const adding = page.getByTestId('definition-new');
  await adding.locator('summary').click();
  const draft = adding.getByTestId('definition-text');
  await expect(draft).toHaveValue(/"name": "restart_service"/);

  // Not JSON: said here, nothing sent.
  await draft.fill('{"name": ');
  await adding.getByTestId('definition-plan-run').click();
  await expect(adding.getByTestId('definition-local-error')).toContainText('The draft is not JSON');

  // A rule that does not parse: the plan names it by its path, and there is nothing to publish.
  await draft.fill(JSON.stringify(declared('facts.state == ')));
  await draft.press('Control+Enter');
  const plan = adding.getByTestId('definition-plan');
  await expect(plan).toHaveAttribute('data-valid', 'false');
  await expect(plan.getByTestId('definition-problem').first()).toContainText('rules.0.require');
  await expect(adding.getByTestId('definition-publish')).toHaveCount(0);
  expect(await violations(page)).toEqual([]);

  // Valid: new, v1; publishing needs a note.
  await draft.fill(JSON.stringify(declared("facts.state == 'running'"), null, 2));
  await adding.getByTestId('definition-plan-run').click();
  await expect(plan).toHaveAttribute('data-valid', 'true');
  await expect(plan.getByTestId('definition-plan-head')).toHaveText(`${DECLARED} is new: publishing makes v1.`);
  await expect(adding.getByTestId('definition-publish')).toBeDisabled();
  await adding.getByTestId('definition-note').fill('Restarts from the support bot');
  await adding.getByTestId('definition-publish').click();
  await expect(adding.getByTestId('definition-published')).toHaveText(`Published ${DECLARED} v1.`);

  // The page reads it again: the action, its definition v1 with who, why, its services and rules.
  const article = page.getByTestId(`contract-${DECLARED}`);
  const definition = article.getByTestId(`definition-${DECLARED}`);
  await expect(definition).toHaveAttribute('data-version', '1');
  await expect(definition.getByTestId('definition-note').first()).toContainText('Restarts from the support bot');
  await expect(definition.getByTestId('definition-publisher').first()).toHaveText('Carol');
  await expect(definition.getByTestId('definition-executor')).toHaveText(`${SERVICES}/actions/${DECLARED}/execute`);
  await expect(definition.getByTestId('definition-rule')).toHaveAttribute('data-code', 'service_not_running');
  await expect(article.getByTestId(`version-${DECLARED}-v1`).getByTestId('contract-status')).toHaveText('current');

  // Its next version from its own draft, prefilled with the current document.
  const next = article.getByTestId(`definition-publish-${DECLARED}`);
  await next.locator('summary').click();
  const text = next.getByTestId('definition-text');
  await expect(text).toHaveValue(/"name": "e2e_restart_service"/);
  await text.fill(JSON.stringify(declared("facts.state == 'running'", 'Start it first, then restart.', true), null, 2));
  await next.getByTestId('definition-plan-run').click();
  await expect(next.getByTestId('definition-plan-head')).toHaveText(`${DECLARED} v1 → v2`);
  // A new required argument refuses what agents sent before: called out apart.
  await expect(next.getByTestId('definition-plan-breaking')).toContainText('reason');
  expect(await violations(page)).toEqual([]);
  await eachLook(page, async (look) => {
    // The measurement charts take the new width a frame after the viewport changes: await it.
    await expect.poll(() => overflow(page)).toBeLessThanOrEqual(0);
    await article.screenshot({ path: path.join(dir, `contracts-definition${look}.png`) });
  });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 720 });
  await next.getByTestId('definition-note').fill('Clearer refusal');
  await next.getByTestId('definition-publish').click();
  await expect(next.getByTestId('definition-published')).toHaveText(`Published ${DECLARED} v2.`);
  await expect(definition).toHaveAttribute('data-version', '2');
  const versions = definition.getByTestId(`definition-versions-${DECLARED}`);
  await versions.locator('summary').click();
  await expect(versions.getByTestId('definition-version')).toHaveCount(1);
  await expect(versions.getByTestId('definition-version')).toHaveAttribute('data-version', '1');
  await expect(versions.getByTestId('definition-version')).toContainText('Restarts from the support bot');
});

test('the Contracts page, light and dark, at desktop and phone widths, its charts within the CSP', async ({
  page,
  request,
}) => {
  // At least one failing field to draw, whatever ran before.
  expect((await hold(request, { sku: 'filter-blue', quantity: 9 })).status()).toBe(422);
  // The charts draw SVG with inline style attributes; the page CSP (nonce scripts, no 'unsafe-eval') must not block them.
  const violations: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|unsafe-eval/i.test(message.text()))
      violations.push(message.text());
  });
  await page.goto('/contracts?window=24h');
  await signInWithForm(page, 'carol@acme.test');
  await expect(page.getByTestId('contract-hold_stock')).toBeVisible();
  await eachLook(page, async (look) => {
    await page.reload();
    await expect(page.getByTestId('measurements-hold_stock')).toBeVisible();
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await expect(page.getByTestId('fields-chart-hold_stock').locator('.recharts-bar-rectangle').first()).toBeVisible();
    await page.screenshot({ path: path.join(dir, `contracts${look}.png`), fullPage: true });
  });
  expect(violations).toEqual([]);
});
