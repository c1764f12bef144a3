import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { type HttpSink, startHttpSink, verifyStandardWebhook } from '../demo/receivers/http-sink';
import { apiSession, E2E_SINK_PORT, signInWithForm } from './support';

/**
 * Settings → Notifications against the production server and a real local receiver: a webhook's
 * secret is shown once and signs what arrives, a Slack receiver that answers 410 leaves the
 * delivery dead until Retry, and the admin API refuses everything it should without changing anything.
 */

const API = '/api/v1/admin/notifications';

type Channel = {
  id: string;
  kind: string;
  target: string;
  events: string[];
  enabled: boolean;
  digestThreshold: number;
  hasSecret: boolean;
};
type Delivery = {
  id: string;
  channelId: string;
  event: string;
  status: string;
  latencyMs: number | null;
  lastError: string | null;
};
type Overview = {
  settings: { reminderLeadMinutes: number; escalateAfterMinutes: number; notifyWithValues: boolean };
  channels: Channel[];
  deliveries: Delivery[];
};
type Problem = { error: { kind: string; code: string; issues?: { field: string; code: string }[] } };

let sink: HttpSink;
test.beforeAll(async () => {
  sink = await startHttpSink({ port: E2E_SINK_PORT });
});
test.afterAll(async () => {
  await sink.close();
});

async function overview(api: APIRequestContext): Promise<Overview> {
  const response = await api.get(API);
  expect(response.status()).toBe(200);
  return (await response.json()) as Overview;
}

/** Disables what a test added, so later specs' proposals are not sent to a closed receiver. */
async function disableAll(api: APIRequestContext, baseURL: string, ids: string[]) {
  for (const id of ids) {
    await api.patch(`${API}/channels/${id}`, { headers: { origin: baseURL }, data: { enabled: false } });
  }
}

async function openAsCarol(page: Page) {
  await page.goto('/settings');
  await signInWithForm(page, 'carol@acme.test');
  await page.getByTestId('settings-notifications-link').click();
  await expect(page).toHaveURL(/\/settings\/notifications$/);
  await expect(page.getByTestId('channels-panel')).toBeVisible();
}

function channelCard(page: Page, kind: string, target: string) {
  return page.locator(`[data-testid="channel"][data-kind="${kind}"]`).filter({ hasText: target });
}

test('an admin adds channels, sends tests, retries a dead delivery and saves the settings', async ({
  page,
  baseURL,
}) => {
  await openAsCarol(page);
  const added: string[] = [];
  try {
    // A webhook: the secret is shown once, with a copy button and the warning.
    await page.getByTestId('channel-kind').selectOption('webhook');
    const hookUrl = `${sink.url}/hook`;
    await page.getByTestId('channel-target-input').fill(hookUrl);
    await page.getByTestId('channel-add').click();
    const secret = (await page.getByTestId('channel-secret').textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await expect(page.getByTestId('channel-secret-notice')).toContainText('it will not be shown again');
    await expect(page.getByTestId('channel-secret-copy')).toBeVisible();
    sink.expectSecret('/hook', secret);
    const webhook = channelCard(page, 'webhook', hookUrl);
    await expect(webhook).toHaveCount(1);
    added.push((await webhook.getAttribute('data-channel-id'))!);

    await page.reload();
    await expect(webhook).toHaveCount(1);
    await expect(page.getByTestId('channel-secret')).toHaveCount(0);
    expect(JSON.stringify(await overview(page.request))).not.toContain(secret);

    // Send a test: the receiver gets it, signed with the shown secret; the page says delivered, with latency.
    await webhook.getByTestId('channel-test').click();
    await expect(webhook.getByTestId('channel-test-result')).toHaveAttribute('data-status', 'delivered');
    await expect(webhook.getByTestId('channel-test-result')).toContainText(/HTTP 200 · \d+ ms/);
    const [arrived] = sink.received('/hook');
    expect(arrived).toBeDefined();
    expect(arrived!.signature).toBe('valid');
    expect(verifyStandardWebhook(secret, arrived!.headers, arrived!.body)).toBe(true);
    expect(JSON.parse(arrived!.body)).toMatchObject({ type: 'channel.test' });
    const delivered = page
      .locator(`[data-testid="delivery"][data-event="channel.test"][data-status="delivered"]`)
      .first();
    await expect(delivered).toBeVisible();
    await expect(delivered.getByTestId('delivery-latency')).toHaveText(/^\d+ ms$/);

    // A Slack receiver that answers 410 Gone: dead at once, with the code; Retry sends it again.
    sink.fail('/slack', { status: 410 });
    await page.getByTestId('channel-kind').selectOption('slack');
    await page.getByTestId('channel-target-input').fill(`${sink.url}/slack`);
    await page.getByTestId('channel-add-event-proposal.reminder').uncheck();
    await page.getByTestId('channel-add').click();
    await expect(page.getByTestId('channel-secret-notice')).toHaveCount(0);
    // The demo gives acme a Slack channel of its own: find ours by its receiver's origin.
    const slack = channelCard(page, 'slack', `${sink.url}/`);
    await expect(slack).toHaveCount(1);
    added.push((await slack.getAttribute('data-channel-id'))!);
    await expect(slack.getByTestId('channel-events')).not.toContainText('proposal.reminder');
    await slack.getByTestId('channel-test').click();
    await expect(slack.getByTestId('channel-test-result')).toHaveAttribute('data-status', 'dead');
    await expect(slack.getByTestId('channel-test-result')).toContainText('http_410');
    const dead = page
      .locator('[data-testid="delivery"][data-status="dead"]')
      .filter({ hasText: `${sink.url}/` })
      .first();
    await expect(dead.getByTestId('delivery-error')).toHaveText('http_410');
    const deadId = (await dead.getAttribute('data-delivery-id'))!;
    await dead.getByTestId('delivery-retry').click();
    const retried = page.locator(`[data-testid="delivery"][data-delivery-id="${deadId}"]`);
    await expect(retried).toHaveAttribute('data-status', 'delivered');
    await expect(retried.getByTestId('delivery-retry')).toHaveCount(0);
    expect(sink.received('/slack').map((r) => r.status)).toEqual([410, 200]);

    // Edit the Slack channel's events, then disable it: the state is shown, and kept.
    await slack.getByTestId('channel-edit').click();
    await slack.getByTestId(`channel-${added[1]}-edit-event-proposal.waiting`).uncheck();
    await slack.getByTestId('channel-save').click();
    await expect(slack.getByTestId('channel-events')).not.toContainText('proposal.waiting');
    // Its digest threshold: 5 unless set; a bad value is refused with the server's words and changes nothing.
    await expect(slack.getByTestId('channel-digest')).toHaveText('More than 5 a minute arrive as one digest');
    await slack.getByTestId('channel-edit').click();
    await slack.getByTestId('channel-edit-digest').fill('101');
    await slack.getByTestId('channel-save').click();
    await expect(slack.getByTestId('channel-edit-error')).toContainText('digestThreshold');
    await slack.getByTestId('channel-edit-digest').fill('0');
    await slack.getByTestId('channel-save').click();
    await expect(slack.getByTestId('channel-digest')).toHaveText('Every message on its own (no digest)');
    expect((await overview(page.request)).channels.find((c) => c.id === added[1])).toMatchObject({
      digestThreshold: 0,
    });
    await slack.getByTestId('channel-toggle').click();
    await expect(slack.getByTestId('channel-state')).toHaveText('disabled');
    await expect(slack.getByTestId('channel-toggle')).toHaveText('Enable');
    await page.reload();
    await expect(slack).toHaveAttribute('data-enabled', 'false');

    // The tenant's settings persist.
    await page.getByTestId('settings-reminder').fill('30');
    await page.getByTestId('settings-escalate').fill('0');
    await page.getByTestId('settings-values').check();
    await page.getByTestId('settings-save').click();
    await expect(page.getByTestId('settings-saved')).toBeVisible();
    await page.reload();
    await expect(page.getByTestId('settings-reminder')).toHaveValue('30');
    await expect(page.getByTestId('settings-escalate')).toHaveValue('0');
    await expect(page.getByTestId('settings-values')).toBeChecked();
    expect((await overview(page.request)).settings).toEqual({
      reminderLeadMinutes: 30,
      escalateAfterMinutes: 0,
      notifyWithValues: true,
    });
  } finally {
    await page.request.put(`${API}/settings`, {
      headers: { origin: baseURL! },
      data: { reminderLeadMinutes: 60, escalateAfterMinutes: 120, notifyWithValues: false },
    });
    await disableAll(page.request, baseURL!, added);
  }
});

const CREATE = `${API}/channels`;
const HOOK = 'https://receiver.example/hook';

/** Every refusal of the admin API, each leaving the channels exactly as they were. */
const CASES: {
  label: string;
  method?: 'post' | 'patch' | 'put' | 'get';
  path?: string;
  body?: string | Record<string, unknown>;
  origin?: string;
  status: number;
  code: string;
  field?: string;
}[] = [
  { label: 'malformed JSON', body: '{"kind": ', status: 400, code: 'invalid_json' },
  {
    label: 'a body over 64 KiB',
    body: JSON.stringify({ kind: 'webhook', target: `${HOOK}?${'a'.repeat(70_000)}` }),
    status: 413,
    code: 'too_large',
  },
  {
    label: 'an unknown top-level field',
    body: { kind: 'webhook', target: HOOK, tenantId: 'globex' },
    status: 422,
    code: 'invalid_channel',
    field: 'tenantId',
  },
  {
    label: 'kind sms',
    body: { kind: 'sms', target: '+15550100' },
    status: 422,
    code: 'invalid_channel',
    field: 'kind',
  },
  {
    label: 'an ftp target',
    body: { kind: 'webhook', target: 'ftp://x' },
    status: 422,
    code: 'invalid_channel',
    field: 'target',
  },
  {
    label: 'credentials in the URL',
    body: { kind: 'webhook', target: 'https://user:pw@x/' },
    status: 422,
    code: 'invalid_channel',
    field: 'target',
  },
  {
    label: 'a bad email address',
    body: { kind: 'email', target: 'ops at example' },
    status: 422,
    code: 'invalid_channel',
    field: 'target',
  },
  {
    label: 'an unknown event',
    body: { kind: 'webhook', target: HOOK, events: ['proposal.deleted'] },
    status: 422,
    code: 'invalid_channel',
    field: 'events.0',
  },
  {
    label: 'a repeated event',
    body: { kind: 'webhook', target: HOOK, events: ['proposal.waiting', 'proposal.waiting'] },
    status: 422,
    code: 'invalid_channel',
    field: 'events',
  },
  {
    label: 'no events',
    body: { kind: 'webhook', target: HOOK, events: [] },
    status: 422,
    code: 'invalid_channel',
    field: 'events',
  },
  {
    label: 'a negative digest threshold',
    body: { kind: 'webhook', target: HOOK, digestThreshold: -1 },
    status: 422,
    code: 'invalid_channel',
    field: 'digestThreshold',
  },
  {
    label: 'a digest threshold over 100',
    body: { kind: 'webhook', target: HOOK, digestThreshold: 101 },
    status: 422,
    code: 'invalid_channel',
    field: 'digestThreshold',
  },
  {
    label: 'a fractional digest threshold',
    body: { kind: 'webhook', target: HOOK, digestThreshold: 2.5 },
    status: 422,
    code: 'invalid_channel',
    field: 'digestThreshold',
  },
  {
    label: 'a digest threshold as a string',
    body: { kind: 'webhook', target: HOOK, digestThreshold: '5' },
    status: 422,
    code: 'invalid_channel',
    field: 'digestThreshold',
  },
  {
    label: 'a foreign Origin',
    body: { kind: 'webhook', target: HOOK },
    origin: 'https://evil.example',
    status: 403,
    code: 'cross_origin',
  },
  {
    label: 'PATCH of an unknown channel',
    method: 'patch',
    path: `${API}/channels/chn_doesnotexist000000`,
    body: { enabled: false },
    status: 404,
    code: 'not_found',
  },
  {
    label: 'a test of an unknown channel',
    path: `${API}/channels/chn_doesnotexist000000/test`,
    body: {},
    status: 404,
    code: 'not_found',
  },
  {
    label: 'a settings value out of range',
    method: 'put',
    path: `${API}/settings`,
    body: { reminderLeadMinutes: -1, escalateAfterMinutes: 0, notifyWithValues: false },
    status: 422,
    code: 'invalid_settings',
    field: 'reminderLeadMinutes',
  },
  { label: 'GET on a mutation-only route', method: 'get', path: CREATE, status: 405, code: '' },
];

test('the admin API refuses bad requests and changes nothing', async ({ page, baseURL, request }) => {
  await openAsCarol(page);
  const carol = page.request;
  const created = await carol.post(CREATE, {
    headers: { origin: baseURL! },
    data: { kind: 'webhook', target: `${sink.url}/cases` },
  });
  expect(created.status()).toBe(201);
  const { channel, secret } = (await created.json()) as { channel: Channel; secret: string };
  expect(secret).toMatch(/^whsec_/);
  expect(channel).not.toHaveProperty('secret');
  try {
    const email = await carol.post(CREATE, {
      headers: { origin: baseURL! },
      data: { kind: 'email', target: 'ops@acme.test', events: ['proposal.escalated'] },
    });
    expect(email.status()).toBe(201);
    const emailChannel = ((await email.json()) as { channel: Channel; secret: null }).channel;
    expect(((await email.json()) as { secret: unknown }).secret).toBeNull();
    await carol.patch(`${API}/channels/${emailChannel.id}`, {
      headers: { origin: baseURL! },
      data: { enabled: false },
    });

    const before = await overview(carol);
    for (const each of CASES) {
      const method = each.method ?? 'post';
      const headers: Record<string, string> = { origin: each.origin ?? baseURL!, 'content-type': 'application/json' };
      const data =
        typeof each.body === 'string'
          ? Buffer.from(each.body)
          : each.body === undefined
            ? undefined
            : Buffer.from(JSON.stringify(each.body));
      const response = await carol.fetch(each.path ?? CREATE, { method: method.toUpperCase(), headers, data });
      expect(response.status(), each.label).toBe(each.status);
      if (each.code) {
        const problem = (await response.json()) as Problem;
        expect(problem.error.code, each.label).toBe(each.code);
        if (each.field)
          expect(
            problem.error.issues?.map((i) => i.field),
            each.label,
          ).toContain(each.field);
      }
      expect((await overview(carol)).channels, `${each.label}: nothing changed`).toEqual(before.channels);
    }
    // A target that does not fit the channel's kind is refused on PATCH too.
    for (const digestThreshold of [-1, 101, 1.5, '5', null]) {
      const badDigest = await carol.patch(`${API}/channels/${channel.id}`, {
        headers: { origin: baseURL! },
        data: { digestThreshold },
      });
      expect(badDigest.status(), `digestThreshold ${JSON.stringify(digestThreshold)}`).toBe(422);
      expect(((await badDigest.json()) as Problem).error.issues?.map((i) => i.field)).toContain('digestThreshold');
    }
    expect((await overview(carol)).channels.find((c) => c.id === channel.id)).toMatchObject({ digestThreshold: 5 });
    const badTarget = await carol.patch(`${API}/channels/${channel.id}`, {
      headers: { origin: baseURL! },
      data: { target: 'ftp://x' },
    });
    expect(badTarget.status()).toBe(422);
    expect(((await badTarget.json()) as Problem).error.code).toBe('invalid_target');

    // An unknown id and another tenant's look the same; a delivered delivery is not retried.
    const unknown = await carol.patch(`${API}/channels/chn_doesnotexist000000`, {
      headers: { origin: baseURL! },
      data: { enabled: false },
    });
    const unknownOther = await carol.patch(`${API}/channels/${encodeURIComponent('globex-channel')}`, {
      headers: { origin: baseURL! },
      data: { enabled: false },
    });
    expect(await unknown.json()).toEqual(await unknownOther.json());
    const test = await carol.post(`${API}/channels/${channel.id}/test`, { headers: { origin: baseURL! }, data: {} });
    expect(test.status()).toBe(200);
    const { delivery } = (await test.json()) as { delivery: Delivery };
    expect(delivery).toMatchObject({ status: 'delivered', lastError: null });
    expect(delivery.latencyMs).toEqual(expect.any(Number));
    const retry = await carol.post(`${API}/deliveries/${delivery.id}/retry`, {
      headers: { origin: baseURL! },
      data: {},
    });
    expect(retry.status()).toBe(409);
    expect(((await retry.json()) as Problem).error.code).toBe('not_dead');
    const retryUnknown = await carol.post(`${API}/deliveries/msg_doesnotexist/retry`, {
      headers: { origin: baseURL! },
      data: {},
    });
    expect(retryUnknown.status()).toBe(404);
    expect((await overview(carol)).channels).toEqual(before.channels);

    // Not an admin, or not signed in: nothing is shown and nothing is added.
    const alice = await apiSession(baseURL!, 'alice@acme.test');
    const erin = await apiSession(baseURL!, 'erin@globex.test');
    for (const [who, api] of [
      ['alice', alice],
      ['erin', erin],
    ] as const) {
      const get = await api.get(API);
      expect(get.status(), who).toBe(403);
      expect(((await get.json()) as Problem).error).toMatchObject({ kind: 'forbidden', code: 'forbidden' });
      const post = await api.post(CREATE, { headers: { origin: baseURL! }, data: { kind: 'webhook', target: HOOK } });
      expect(post.status(), who).toBe(403);
    }
    const anonymous = await request.get(API);
    expect(anonymous.status()).toBe(401);
    const anonymousPost = await request.post(CREATE, {
      headers: { origin: baseURL! },
      data: { kind: 'webhook', target: HOOK },
    });
    expect(anonymousPost.status()).toBe(401);
    expect((await overview(carol)).channels).toEqual(before.channels);
    await Promise.all([alice.dispose(), erin.dispose()]);
  } finally {
    await disableAll(carol, baseURL!, [channel.id]);
  }
});

test('a non-admin sees why there are no forms', async ({ page }) => {
  await page.goto('/settings/notifications');
  await signInWithForm(page, 'alice@acme.test');
  await expect(page.getByTestId('notifications-admin-only')).toContainText('Only admins manage notifications');
  await expect(
    page.locator('form[data-testid], [data-testid="channel-add-form"], [data-testid="settings-form"]'),
  ).toHaveCount(0);
});
