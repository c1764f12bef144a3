import { type APIRequestContext, expect, type Locator, type Page, test } from '@playwright/test';
import { agentKey, apiSession, signInWithForm, uniqueRequestId } from './support';

/**
 * Settings → Agent keys against the production server: a key created in the UI is shown once,
 * copied, and proposes over HTTP; rotation keeps the old key working through its overlap; revoking
 * stops it at once; and the admin API refuses non-admins, agent keys and another tenant's key ids.
 */

const API = '/api/v1/admin/agent-keys';
const shots = process.env.SCREENSHOT_DIR ?? 'test-results/screenshots';

/** A stock hold proposed with `key` over real HTTP; answers the status. */
async function proposeWith(api: APIRequestContext, key: string, sku = 'filter-blue'): Promise<number> {
  const response = await api.post('/api/v1/proposals', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    data: {
      requestId: uniqueRequestId('admin-keys'),
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku, quantity: 1 },
      evidenceRefs: [],
    },
  });
  return response.status();
}

function keyCard(page: Page, name: string): Locator {
  return page
    .locator('[data-testid="agent-key"]')
    .filter({ has: page.getByTestId('agent-key-name-text').getByText(name, { exact: true }) });
}

async function noSidewaysScroll(page: Page) {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
}

async function createInUi(page: Page, name: string): Promise<string> {
  await page.getByTestId('agent-key-name').fill(name);
  await page.getByTestId('agent-key-action-hold_stock').check();
  await page.getByTestId('agent-key-grant-warehouses').fill('north');
  await page.getByTestId('agent-key-create').click();
  const secret = page.getByTestId('agent-key-secret');
  await expect(secret).toHaveText(/^cs_agent_[A-Za-z0-9_-]{43}$/);
  return (await secret.textContent())!;
}

test('carol creates a key, copies it, proposes with it, rotates it with an overlap and revokes it', async ({
  page,
  context,
  request,
  baseURL,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  await page.goto('/settings/agent-keys');
  await signInWithForm(page, 'carol@acme.test');
  await expect(page).toHaveURL(/\/settings\/agent-keys$/);
  await expect(page.getByTestId('agent-keys-list')).toBeVisible();

  // The grant input appears only once an action that reads it is chosen.
  await expect(page.getByTestId('agent-key-grant-warehouses')).toHaveCount(0);
  const name = `ui-bot-${Date.now()}`;
  const key = await createInUi(page, name);
  await expect(page.getByTestId('agent-key-secret-notice')).toContainText('it is not shown again');
  await page.getByTestId('agent-key-secret-copy').click();
  await expect(page.getByTestId('agent-key-secret-copy')).toHaveText('copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

  const card = keyCard(page, name);
  await expect(card).toHaveAttribute('data-state', 'active');
  await expect(card.getByTestId('agent-key-last-used')).toHaveText('Never');
  expect(await proposeWith(request, key)).toBe(201);

  // Shown once: after a reload the key is nowhere, neither on the page nor in the API.
  await page.reload();
  await expect(card).toHaveCount(1);
  await expect(page.getByTestId('agent-key-secret')).toHaveCount(0);
  expect(JSON.stringify(await (await page.request.get(API)).json())).not.toContain(key.slice(15));
  await expect(card.getByTestId('agent-key-last-used')).toContainText(/\d{4}.*\S+$/);

  // Rotate with a 15-minute overlap: a new key, and both propose until the overlap ends.
  await card.getByTestId('agent-key-rotate').click();
  await card.getByTestId('agent-key-overlap-15').check();
  await card.getByTestId('agent-key-rotate-confirm').click();
  const rotatedKey = (await page.getByTestId('agent-key-secret').textContent())!;
  expect(rotatedKey).not.toBe(key);
  await expect(page.getByTestId('agent-key-secret-notice')).toContainText(`New key for ${name}`);
  const oldCard = page.locator('[data-testid="agent-key"][data-state="expiring"]').filter({ hasText: name });
  await expect(oldCard).toHaveCount(1);
  await expect(oldCard.getByTestId('agent-key-state-line')).toContainText('Rotated; works until');
  expect(await proposeWith(request, key)).toBe(201);
  expect(await proposeWith(request, rotatedKey)).toBe(201);

  // Revoke the new key (with confirmation): the dialog says the old key still works, and until when,
  // and offers to stop the agent. Revoking the new key alone also takes its "copy it now" panel away.
  const fresh = page.locator('[data-testid="agent-key"][data-state="active"]').filter({ hasText: name });
  await fresh.getByTestId('agent-key-revoke').click();
  await expect(fresh.getByTestId('agent-key-revoke-still-working')).toContainText(
    `${name} keeps working after this with another key`,
  );
  await expect(fresh.getByTestId('agent-key-revoke-still-working')).toContainText('(rotated) works until');
  await expect(fresh.getByTestId('agent-key-stop-agent')).toBeFocused();
  await expect(fresh.getByTestId('agent-key-stop-agent')).toHaveText(`Stop ${name}: revoke all 2 keys`);
  await fresh.getByTestId('agent-key-revoke-cancel').click();
  expect(await proposeWith(request, rotatedKey)).toBe(201);
  await fresh.getByTestId('agent-key-revoke').click();
  await fresh.getByTestId('agent-key-revoke-confirm').click();
  await expect(page.locator('[data-testid="agent-key"][data-state="revoked"]').filter({ hasText: name })).toHaveCount(
    1,
  );
  await expect(page.getByTestId('agent-key-secret')).toHaveCount(0);
  await expect(page.getByTestId('agent-key-revoked-still-working')).toContainText('(rotated) works until');
  expect(await proposeWith(request, rotatedKey)).toBe(401);
  expect(await proposeWith(request, key)).toBe(201);
  await page.getByTestId('agent-key-revoked-done').click();
  // The old key is the agent's last: revoking it is plain, and then nothing of the agent works.
  await oldCard.getByTestId('agent-key-revoke').click();
  await expect(oldCard.getByTestId('agent-key-stop-agent')).toHaveCount(0);
  await oldCard.getByTestId('agent-key-revoke-confirm').click();
  await expect(page.locator('[data-testid="agent-key"][data-state="revoked"]').filter({ hasText: name })).toHaveCount(
    2,
  );
  await expect(page.getByTestId('agent-key-revoked-none-left')).toContainText(`No key of ${name} works any more`);
  expect(await proposeWith(request, key)).toBe(401);
});

test('carol stops a rotated agent in one go: every key of it is refused at once', async ({ page, request }) => {
  await page.goto('/settings/agent-keys');
  await signInWithForm(page, 'carol@acme.test');
  const name = `stop-bot-${Date.now()}`;
  const key = await createInUi(page, name);
  const card = keyCard(page, name);
  await card.getByTestId('agent-key-rotate').click();
  await card.getByTestId('agent-key-overlap-1440').check();
  await card.getByTestId('agent-key-rotate-confirm').click();
  await expect(page.getByTestId('agent-key-secret-notice')).toContainText(`New key for ${name}`);
  const rotatedKey = (await page.getByTestId('agent-key-secret').textContent())!;
  // The list has the rotation: the old key in its overlap beside the new one.
  await expect(page.locator('[data-testid="agent-key"][data-state="expiring"]').filter({ hasText: name })).toHaveCount(
    1,
  );
  const fresh = page.locator('[data-testid="agent-key"][data-state="active"]').filter({ hasText: name });
  await fresh.getByTestId('agent-key-revoke').click();
  await fresh.getByTestId('agent-key-stop-agent').click();
  await expect(page.locator('[data-testid="agent-key"][data-state="revoked"]').filter({ hasText: name })).toHaveCount(
    2,
  );
  await expect(page.getByTestId('agent-key-secret')).toHaveCount(0);
  await expect(page.getByTestId('agent-key-revoked-notice')).toContainText(`Stopped ${name}: revoked 2 keys.`);
  expect([await proposeWith(request, key), await proposeWith(request, rotatedKey)]).toEqual([401, 401]);
});

test('the create form says what is wrong, in the server’s words', async ({ page }) => {
  await page.goto('/settings/agent-keys');
  await signInWithForm(page, 'carol@acme.test');
  await page.getByTestId('agent-key-name').fill('bad name');
  await page.getByTestId('agent-key-action-hold_stock').check();
  await page.getByTestId('agent-key-grant-warehouses').fill('north');
  await page.getByTestId('agent-key-create').click();
  await expect(page.getByTestId('agent-key-create-error')).toContainText('name');
  await expect(page.getByTestId('agent-key-secret')).toHaveCount(0);
});

test('the admin API refuses approvers, viewers, agent keys and another tenant’s key ids', async ({
  request,
  baseURL,
}) => {
  const origin = { origin: baseURL! };
  const body = { name: 'sneaky-bot', actions: ['hold_stock'], grants: { warehouses: ['north'] } };
  for (const email of ['alice@acme.test', 'dave@acme.test']) {
    const api = await apiSession(baseURL!, email);
    expect((await api.get(API)).status(), `${email} GET`).toBe(403);
    expect((await api.post(API, { headers: origin, data: body })).status(), `${email} POST`).toBe(403);
  }
  expect((await request.get(API)).status()).toBe(401);
  const agentHeaders = { authorization: `Bearer ${agentKey('acme')}` };
  expect((await request.get(API, { headers: agentHeaders })).status()).toBe(401);
  expect((await request.post(API, { headers: { ...agentHeaders, ...origin }, data: body })).status()).toBe(401);

  // The globex agent's key id, from globex's own audit trail (erin is a member there).
  const erin = await apiSession(baseURL!, 'erin@globex.test');
  const exported = await (await erin.get('/api/v1/audit/events?format=jsonl&type=agent_key.created')).text();
  const created = exported
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { tenantId: string; data: { key: string; agent: string } });
  const globexKeyId = created.filter((row) => row.tenantId === 'globex' && row.data.agent === 'globex-bot').at(-1)
    ?.data.key;
  expect(globexKeyId).toMatch(/^key_/);

  const carol = await apiSession(baseURL!, 'carol@acme.test');
  for (const [verb, data] of [
    ['revoke', {}],
    ['rotate', { overlapMinutes: 0 }],
  ] as const) {
    const foreign = await carol.post(`${API}/${globexKeyId}/${verb}`, { headers: origin, data });
    const unknown = await carol.post(`${API}/key_doesnotexist/${verb}`, { headers: origin, data });
    expect([foreign.status(), unknown.status()], verb).toEqual([404, 404]);
    expect(await foreign.json()).toEqual(await unknown.json());
  }
  expect(JSON.stringify(await (await carol.get(API)).json())).not.toContain(globexKeyId!);
  expect(await proposeWith(request, agentKey('globex'), 'filter-green')).toBe(201);

  // A cross-site POST and an unknown grant are refused before anything changes.
  expect((await carol.post(API, { headers: { origin: 'https://evil.example' }, data: body })).status()).toBe(403);
  const invalid = await carol.post(API, { headers: origin, data: { ...body, grants: { regions: ['eu'] } } });
  expect(invalid.status()).toBe(422);
  expect(((await invalid.json()) as { error: { code: string; issues: { field: string }[] } }).error).toMatchObject({
    code: 'invalid_agent_key',
    issues: [{ field: 'grants.regions' }],
  });
});

test('screenshots: desktop and phone, light and dark; the viewer sees why they cannot manage keys', async ({
  page,
  browser,
  baseURL,
}) => {
  await page.goto('/settings/agent-keys');
  await signInWithForm(page, 'carol@acme.test');
  await expect(page.getByTestId('agent-keys-list')).toBeVisible();
  await page.getByTestId('agent-key-action-hold_stock').check();
  for (const [label, width, height, scheme] of [
    ['light', 1440, 1000, 'light'],
    ['dark', 1440, 1000, 'dark'],
    ['phone', 390, 844, 'light'],
    ['phone-dark', 390, 844, 'dark'],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.emulateMedia({ colorScheme: scheme });
    await noSidewaysScroll(page);
    await page.screenshot({ path: `${shots}/settings-agent-keys-${label}.png`, fullPage: true });
  }

  const viewer = await browser.newContext({ baseURL });
  const davePage = await viewer.newPage();
  await davePage.goto('/settings/agent-keys');
  await signInWithForm(davePage, 'dave@acme.test');
  await expect(davePage.getByTestId('agent-keys-admin-only')).toContainText(
    'Only admins issue, rotate and revoke agent keys',
  );
  await expect(davePage.getByTestId('agent-key-form')).toHaveCount(0);
  await viewer.close();
});
