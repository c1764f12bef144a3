import { expect, test } from '@playwright/test';
import { startHttpSink } from '../demo/receivers/http-sink';
import { apiSession, E2E_SINK_PORT, proposeHold, signInWithForm } from './support';

test('a deep link opened while signed out lands back on it after sign-in', async ({ page, request }) => {
  const proposal = await proposeHold(request, 'acme');
  await page.goto(`/proposals/${proposal.id}?from=notification`);
  await expect(page).toHaveURL(/\/signin\?callbackUrl=/);
  await expect(page.getByTestId('signin-form')).toBeVisible();
  await signInWithForm(page, 'dave@acme.test');
  await expect(page).toHaveURL(new RegExp(`/proposals/${proposal.id}\\?from=notification$`));
  await expect(page.getByTestId('proposal-page')).toBeVisible();
  // dave is a viewer: he sees the proposal but no decision buttons.
  await expect(page.getByTestId('approve')).toHaveCount(0);
  await expect(page.getByTestId('decision-state')).toContainText('viewer');
});

test('sign-in refuses a wrong password and never redirects off-site', async ({ page }) => {
  await page.goto('/signin?callbackUrl=https%3A%2F%2Fevil.test%2Fsteal');
  await page.getByTestId('signin-email').fill('alice@acme.test');
  await page.getByTestId('signin-password').fill('not-the-password');
  await page.getByTestId('signin-submit').click();
  await expect(page.getByTestId('signin-error')).toHaveText('That email and password do not match an account.');
  await signInWithForm(page, 'alice@acme.test');
  await expect(page).toHaveURL(/^http:\/\/localhost:\d+\/$/);
});

test('another tenant’s proposal is not found', async ({ page, request }) => {
  const proposal = await proposeHold(request, 'acme');
  await page.goto(`/proposals/${proposal.id}`);
  await signInWithForm(page, 'erin@globex.test');
  await expect(page.getByTestId('not-found')).toBeVisible();
  await expect(page.getByTestId('proposal-page')).toHaveCount(0);
});

test('a notification’s link, opened after someone else decided, signs in and shows the current state', async ({
  baseURL,
  browser,
  request,
}) => {
  const sink = await startHttpSink({ port: E2E_SINK_PORT });
  const carol = await apiSession(baseURL!, 'carol@acme.test');
  const created = await carol.post('/api/v1/admin/notifications/channels', {
    headers: { origin: baseURL! },
    // Every message on its own: another worker's proposals in acme must not fold this one into a digest.
    data: { kind: 'webhook', target: `${sink.url}/deep-link`, events: ['proposal.waiting'], digestThreshold: 0 },
  });
  expect(created.status()).toBe(201);
  const { channel, secret } = (await created.json()) as { channel: { id: string }; secret: string };
  sink.expectSecret('/deep-link', secret);
  try {
    const proposal = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
    // The worker fans out and delivers every second: the receiver gets a signed proposal.waiting.
    const waiting = () =>
      sink
        .received('/deep-link')
        .map((r) => ({
          signature: r.signature,
          message: JSON.parse(r.body) as { type: string; data: { proposalId?: string; url: string } },
        }))
        .find((r) => r.message.type === 'proposal.waiting' && r.message.data.proposalId === proposal.id);
    await expect.poll(waiting, { timeout: 20_000 }).toBeDefined();
    const { signature, message } = waiting()!;
    expect(signature).toBe('valid');
    const link = new URL(message.data.url);
    expect(link.pathname).toBe(`/proposals/${proposal.id}`);

    // bob approves before anyone opens the link.
    const bob = await apiSession(baseURL!, 'bob@acme.test');
    const decided = await bob.post(`/api/v1/proposals/${proposal.id}/decisions`, {
      headers: { origin: baseURL! },
      data: { decision: 'approve', payloadHash: proposal.payloadHash },
    });
    expect(decided.status()).toBe(200);
    await bob.dispose();

    // alice opens the link in a fresh browser: sign-in, then exactly that proposal, already decided.
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${link.pathname}${link.search}`);
    await expect(page).toHaveURL(/\/signin\?callbackUrl=/);
    await signInWithForm(page, 'alice@acme.test');
    await expect(page).toHaveURL(new RegExp(`/proposals/${proposal.id}\\?via=notification$`));
    await expect(page.getByTestId('proposal-page')).toBeVisible();
    await expect(page.getByTestId('status-chip')).toHaveAttribute('data-status', /^(approved|executing|succeeded)$/);
    await expect(page.getByTestId('approve')).toHaveCount(0);
    await context.close();
  } finally {
    await carol.patch(`/api/v1/admin/notifications/channels/${channel.id}`, {
      headers: { origin: baseURL! },
      data: { enabled: false },
    });
    await carol.dispose();
    await sink.close();
  }
});
