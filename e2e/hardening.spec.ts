import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { type APIRequestContext, expect, request as playwrightRequest, test } from '@playwright/test';
import { agentKey, apiSession, person, proposeHold, signInWithForm } from './support';

const port = Number(process.env.E2E_PORT ?? 3210);
/** The dashboard reached by address, not by the name Next reports in request.url. */
const byAddress = `http://127.0.0.1:${port}`;

test.describe('reached at 127.0.0.1', () => {
  test.use({ baseURL: byAddress });

  test('an approver approves, and the API accepts same-origin decisions, from the address', async ({
    page,
    request,
  }) => {
    const proposal = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
    await page.goto(`/proposals/${proposal.id}`);
    await signInWithForm(page, 'alice@acme.test');
    await expect(page).toHaveURL(`${byAddress}/proposals/${proposal.id}`);
    await page.getByTestId('approve').click();
    await page.getByTestId('confirm-approve').click();
    await expect(page.getByTestId('status-chip')).toHaveText(/^(approved|executing|succeeded)$/);
    await expect(page.getByTestId('decision-outcome')).toContainText('Approved by Alice');
  });

  test('the decision API checks Origin against the address used', async () => {
    const bob = await apiSession(byAddress, 'bob@acme.test');
    const api = await playwrightRequest.newContext({ baseURL: byAddress });
    const cases: [string | undefined, number, string | undefined][] = [
      ['http://evil.test', 403, 'cross_origin'],
      [undefined, 403, 'cross_origin'],
      [`http://127.0.0.1:${port + 7}`, 403, 'cross_origin'],
      [byAddress, 200, undefined],
    ];
    for (const [origin, status, code] of cases) {
      const proposal = await proposeHold(api, 'acme', { sku: 'filter-gray', quantity: 1 });
      const response = await bob.post(`/api/v1/proposals/${proposal.id}/decisions`, {
        headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) },
        data: { decision: 'reject', payloadHash: proposal.payloadHash, reason: 'Checked origin handling' },
      });
      expect(response.status(), `Origin ${origin ?? '(none)'}`).toBe(status);
      if (code) expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
    }
  });
});

/** The server's resident memory (the process listening on the e2e port), in MB. */
function serverRssMb(): number {
  const listing = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
  const pid = listing.match(/pid=(\d+)/)?.[1];
  if (!pid) throw new Error(`no process listens on ${port}`);
  const kb = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)?.[1];
  return Number(kb) / 1024;
}

/** Streams `total` bytes chunked (no Content-Length) until the server answers; resolves its status. */
function sendChunked(path: string, headers: Record<string, string>, total: number): Promise<number> {
  return new Promise((resolve) => {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let answered = false;
    let sent = 0;
    const request = http.request({
      host: '127.0.0.1',
      port,
      path,
      method: 'POST',
      headers: { ...headers, 'transfer-encoding': 'chunked' },
    });
    request.on('response', (response) => {
      answered = true;
      response.resume();
      resolve(response.statusCode ?? 0);
      request.destroy();
    });
    request.on('error', () => {
      if (!answered) resolve(0);
      answered = true;
    });
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!request.write(chunk)) return void request.once('drain', pump);
      }
      if (!answered) request.end();
    };
    pump();
  });
}

test('100 MB chunked bodies are refused with 413 on every body-reading route, without growing the server', async () => {
  test.setTimeout(120_000);
  const bob = await apiSession(byAddress, 'bob@acme.test');
  const cookie = (await bob.storageState()).cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const api = await playwrightRequest.newContext({ baseURL: byAddress });
  const proposal = await proposeHold(api, 'acme', { sku: 'filter-blue', quantity: 1 });
  const routes: [string, Record<string, string>][] = [
    ['/api/v1/proposals', { authorization: `Bearer ${agentKey('acme')}`, 'content-type': 'application/json' }],
    [`/api/v1/proposals/${proposal.id}/decisions`, { cookie, origin: byAddress, 'content-type': 'application/json' }],
    [`/api/v1/proposals/${proposal.id}/revisions`, { cookie, origin: byAddress, 'content-type': 'application/json' }],
    ['/api/executor/payments', { 'content-type': 'application/jose' }],
    ['/api/auth/callback/credentials', { 'content-type': 'application/x-www-form-urlencoded' }],
  ];
  // Warm every route first, so loading its code is not counted as body memory.
  for (const [path, headers] of routes) expect(await sendChunked(path, headers, 256 * 1024)).toBe(413);
  const before = serverRssMb();
  for (const [path, headers] of routes) expect(await sendChunked(path, headers, 100 * 1024 * 1024), path).toBe(413);
  const growth = serverRssMb() - before;
  expect(growth, `server RSS grew by ${growth.toFixed(1)} MB`).toBeLessThan(20);
});

async function sessionOf(api: APIRequestContext): Promise<{ operatorId?: string } | null> {
  return (await (await api.get('/api/auth/session')).json()) as { operatorId?: string } | null;
}

test.describe('sessions end on the server', () => {
  test('a saved cookie is worthless after sign-out, and /api/auth/session does not revive it', async ({
    page,
    browser,
  }) => {
    await page.goto('/');
    await signInWithForm(page, 'dave@acme.test');
    await expect(page.getByTestId('signed-in-as')).toContainText('Dave');
    const saved = await page.context().storageState();

    // Sign out lives in the account menu (the name · role button).
    await page.getByTestId('account-menu').click();
    await page.getByTestId('sign-out').click();
    await expect(page).toHaveURL(/\/signin/);

    const replay = await browser.newContext({ storageState: saved });
    const stolen = await replay.newPage();
    await stolen.goto('/');
    await expect(stolen).toHaveURL(/\/signin/);
    const api = await playwrightRequest.newContext({ storageState: saved, baseURL: page.url() });
    expect(await sessionOf(api)).toBeNull();
    expect((await api.get('/api/v1/queue')).status()).toBe(401);
    await replay.close();
  });

  test('"Sign out everywhere" ends the same person\'s sessions in other browsers', async ({ browser }) => {
    const [first, second] = [await browser.newContext(), await browser.newContext()];
    const [a, b] = [await first.newPage(), await second.newPage()];
    for (const page of [a, b]) {
      await page.goto('/');
      await signInWithForm(page, 'dave@acme.test');
      await expect(page.getByTestId('signed-in-as')).toContainText('Dave');
    }
    await a.getByTestId('account-menu').click();
    await a.getByTestId('sign-out-everywhere').click();
    await expect(a).toHaveURL(/\/signin/);
    await b.reload();
    await expect(b).toHaveURL(/\/signin/);
    await first.close();
    await second.close();
  });
});

/** One credentials post through next-auth's own flow; returns where it sent us. */
async function tryPassword(
  api: APIRequestContext,
  csrfToken: string,
  email: string,
  password: string,
  headers: Record<string, string> = {},
) {
  const response = await api.post('/api/auth/callback/credentials', {
    form: { csrfToken, email, password, callbackUrl: '/' },
    headers,
    maxRedirects: 0,
  });
  const location = response.headers().location ?? '';
  if (location.includes('code=throttled')) return 'throttled';
  return location.includes('error=') ? 'refused' : 'signed-in';
}

test('sign-in is throttled per account and address, identically for unknown accounts, and spoofed headers do not help', async () => {
  test.setTimeout(60_000);
  const fresh = async () => {
    const api = await playwrightRequest.newContext({ baseURL: byAddress });
    const { csrfToken } = (await (await api.get('/api/auth/csrf')).json()) as { csrfToken: string };
    return { api, csrfToken };
  };
  // 40 wrong passwords as fast as they go: 5 are checked, the rest refused unchecked, for a real
  // account and for one that does not exist alike (the answers are the same bytes).
  const bursts: Record<string, string[]> = {};
  for (const email of ['dave@acme.test', 'nobody-here@acme.test']) {
    const { api, csrfToken } = await fresh();
    bursts[email] = [];
    for (let i = 0; i < 40; i++) bursts[email].push(await tryPassword(api, csrfToken, email, 'not the password'));
  }
  for (const outcomes of Object.values(bursts)) {
    expect(outcomes.slice(0, 5)).toEqual(Array(5).fill('refused'));
    expect(outcomes.filter((o) => o === 'throttled').length).toBeGreaterThanOrEqual(30);
  }

  // Wait out two delays (1 s, 2 s) with wrong guesses: now the delay is 4 s, and the right password
  // is refused unchecked within it, whatever address the client claims.
  const dave = person('dave@acme.test');
  const { api, csrfToken } = await fresh();
  for (let i = 0; i < 2; i++) {
    await expect
      .poll(() => tryPassword(api, csrfToken, dave.email, 'still not it'), { intervals: [200], timeout: 10_000 })
      .toBe('refused');
  }
  expect(await tryPassword(api, csrfToken, dave.email, dave.password)).toBe('throttled');
  expect(await tryPassword(api, csrfToken, dave.email, dave.password, { 'x-forwarded-for': '10.9.9.9' })).toBe(
    'throttled',
  );
  expect(await tryPassword(api, csrfToken, dave.email, dave.password, { 'x-countersign-peer': '10.9.9.8' })).toBe(
    'throttled',
  );
  // Once the delay has passed, the right password works and clears the account's count.
  await expect
    .poll(() => tryPassword(api, csrfToken, dave.email, dave.password), { intervals: [500], timeout: 15_000 })
    .toBe('signed-in');
});

test('the page policy runs only nonce-bearing scripts: an injected inline script does not run, the page still hydrates', async ({
  page,
}) => {
  await page.goto('/');
  await signInWithForm(page, 'alice@acme.test');
  await expect(page.getByTestId('queue')).toBeVisible();

  const violations: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await page.route('**/', async (route) => {
    if (route.request().resourceType() !== 'document') return route.continue();
    const response = await route.fetch();
    const html = (await response.text()).replace('</body>', '<script>window.__injected = true;</script></body>');
    await route.fulfill({ response, body: html });
  });
  const response = await page.goto('/');
  const policy = response?.headers()['content-security-policy'] ?? '';
  expect(policy).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
  expect(policy.split('; ').find((directive) => directive.startsWith('script-src'))).not.toContain('unsafe-inline');
  await expect(page.getByTestId('queue')).toHaveAttribute('data-keys-ready', 'true');
  expect(await page.evaluate(() => (window as { __injected?: boolean }).__injected)).toBeUndefined();
  expect(violations.length).toBeGreaterThan(0);
});
