import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { QUEUE_FIFTY_ORDERS } from '@/demo/systems/world';
import { startHttpSink } from '../demo/receivers/http-sink';
import { violations } from './axe';
import { apiSession, E2E_SINK_PORT, proposeHold, proposeRefund, signInWithForm } from './support';

// `npm run screenshots` writes these into e2e/screenshots for the README; a normal run keeps
// them with the test results so the pages are still looked at on every run.
const dir = process.env.SCREENSHOT_DIR ?? 'test-results/screenshots';

async function shoot(page: Page, name: string, fullPage = true) {
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage });
}

async function noSidewaysScroll(page: Page) {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
}

test('every page renders for an approver, at desktop and phone widths', async ({ page, request }) => {
  const first = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 2 });
  const refund = await proposeRefund(
    request,
    {
      orderId: 'ord_1843',
      amountMinor: 1500,
      currency: 'EUR',
      reason: 'Damaged on arrival\u200b, customer sent photos',
    },
    ['ticket_message_73', 'ticket_message_74'],
  );

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/');
  await signInWithForm(page, 'alice@acme.test');
  await expect(page.getByTestId('queue-list')).toBeVisible();

  await page.goto(`/proposals/${first.id}`);
  await expect(page.getByTestId('proposal-page')).toBeVisible();
  await shoot(page, 'proposal');

  // Evidence is inert text: the injected markup and link in ticket_message_74 are shown, not run.
  await page.goto(`/proposals/${refund.id}`);
  await expect(page.getByTestId('evidence-item')).toHaveCount(2);
  await expect(page.getByTestId('evidence').locator('a, script')).toHaveCount(0);
  await expect(page.getByTestId('arg-reason').getByTestId('invisible-char')).toHaveText('⟦U+200B⟧');
  await expect(page.getByTestId('arg-amountMinor')).toContainText('15.00 EUR');
  await shoot(page, 'proposal-refund');

  for (const [name, testId] of [
    ['history', 'history-page'],
    ['contracts', 'contract-hold_stock'],
    ['settings', 'agent-keys'],
  ] as const) {
    await page.goto(`/${name}`);
    await expect(page.getByTestId(testId)).toBeVisible();
    await shoot(page, name);
  }

  await page.setViewportSize({ width: 375, height: 812 });
  await page.goto(`/proposals/${first.id}`);
  await expect(page.getByTestId('approve')).toBeVisible();
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
  // What a phone shows first: the decision bar stays at the bottom of the screen (a full-page shot would float it mid-page).
  await shoot(page, 'proposal-phone', false);
});

test.describe('the queue', () => {
  // A viewer in Berlin: times in the rows are in that zone, named once below the list.
  test.use({ timezoneId: 'Europe/Berlin' });

  test('light and dark, desktop (split view with the preview) and phone', async ({ page, request }) => {
    await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 4 });
    await proposeHold(request, 'acme', { sku: 'filter-gray', quantity: 1 });
    const refund = await proposeRefund(
      request,
      {
        orderId: 'ord_1843',
        amountMinor: 1500,
        currency: 'EUR',
        reason: 'Damaged on arrival\u200b, customer sent photos',
      },
      ['ticket_message_73', 'ticket_message_74'],
    );
    // alice's queue as she finds it (whatever else is pending), newest first so the refund with the
    // hostile evidence is focused and previewed; the window's height, not the whole list.
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto('/?sort=newest');
    await signInWithForm(page, 'alice@acme.test');
    await expect(page.getByTestId('queue-list')).toBeVisible();
    await expect(page.getByTestId('queue-preview')).toHaveAttribute('data-proposal-id', refund.id);
    await expect(page.getByTestId('queue-zone')).toHaveText('Times in Europe/Berlin');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const suffix = scheme === 'dark' ? '-dark' : '';
      await page.setViewportSize({ width: 1280, height: 900 });
      await shoot(page, `queue${suffix}`, false);
      await page.setViewportSize({ width: 390, height: 844 });
      await expect(page.getByTestId('queue-preview')).toBeHidden();
      await expect(
        page.locator(`[data-testid="queue-item"][data-proposal-id="${refund.id}"]`).getByTestId('queue-item-reason'),
      ).toBeVisible();
      await noSidewaysScroll(page);
      await shoot(page, `queue-phone${suffix}`, false);
    }
  });
});

test('the sign-in page', async ({ page }) => {
  await page.goto('/signin');
  await expect(page.getByTestId('signin-form')).toBeVisible();
  await shoot(page, 'signin');
});

test('settings → notifications, light and dark, at desktop and phone widths', async ({ page, baseURL }) => {
  const sink = await startHttpSink({ port: E2E_SINK_PORT });
  const added: string[] = [];
  try {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto('/settings/notifications');
    await signInWithForm(page, 'carol@acme.test');
    await expect(page.getByTestId('channels-panel')).toBeVisible();
    const api = '/api/v1/admin/notifications';
    sink.fail('/slack', { status: 410 });
    for (const [kind, target] of [
      ['webhook', `${sink.url}/hook`],
      ['slack', `${sink.url}/slack`],
    ] as const) {
      const created = await page.request.post(`${api}/channels`, {
        headers: { origin: baseURL! },
        data: { kind, target },
      });
      expect(created.status()).toBe(201);
      const { channel } = (await created.json()) as { channel: { id: string } };
      added.push(channel.id);
      await page.request.post(`${api}/channels/${channel.id}/test`, { headers: { origin: baseURL! }, data: {} });
    }
    await page.reload();
    await expect(page.locator('[data-testid="delivery"][data-status="dead"]').first()).toBeVisible();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width: 1440, height: 900 });
      await shoot(page, `settings-notifications-${scheme}`);
      await page.setViewportSize({ width: 390, height: 844 });
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await shoot(page, `settings-notifications-phone-${scheme}`);
    }
  } finally {
    for (const id of added)
      await page.request.patch(`/api/v1/admin/notifications/channels/${id}`, {
        headers: { origin: baseURL! },
        data: { enabled: false },
      });
    await sink.close();
  }
});

test('issue 24 density: queue, proposal, History and Settings at 1440×900 and 390×844, light and dark', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(240_000);
  const made: { id: string; payloadHash: string }[] = [];
  for (let i = 0; i < 20; i++)
    made.push(await proposeHold(request, 'acme', { sku: 'filter-gray', quantity: 1 + (i % 2) }));
  const refund = await proposeRefund(
    request,
    { orderId: 'ord_1843', amountMinor: 1500, currency: 'EUR', reason: 'Damaged on arrival, customer sent photos' },
    ['ticket_message_73', 'ticket_message_74'],
  );
  made.push(refund);
  const reject = async (which: typeof made, reason: string) => {
    const bob = await apiSession(baseURL!, 'bob@acme.test');
    for (const { id, payloadHash } of which)
      await bob.post(`/api/v1/proposals/${id}/decisions`, {
        headers: { origin: baseURL! },
        data: { decision: 'reject', payloadHash, reason },
      });
    await bob.dispose();
  };
  // A few decided ones, so History has rows.
  await reject(made.splice(0, 6), 'Duplicate of an earlier hold');
  try {
    await page.goto('/?group=all&sort=newest');
    await signInWithForm(page, 'carol@acme.test');
    await expect(page.getByTestId('queue-list')).toBeVisible();
    const pages = [
      ['queue', '/?group=all&sort=newest', 'queue-list'],
      ['proposal', `/proposals/${refund.id}`, 'proposal-page'],
      ['history', '/history', 'history-page'],
      ['settings', '/settings', 'agent-keys'],
    ] as const;
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [width, height] of [
        [1440, 900],
        [390, 844],
      ] as const) {
        await page.setViewportSize({ width, height });
        for (const [name, path, testId] of pages) {
          await page.goto(path);
          await expect(page.getByTestId(testId)).toBeVisible();
          await noSidewaysScroll(page);
          await shoot(page, `i24-${name}-${width}-${scheme}`, false);
        }
      }
    }
  } finally {
    await reject(made, 'Screenshots taken');
  }
});

test.describe('issue 35 states', () => {
  // A viewer in Berlin: every time on these pages is in that zone.
  test.use({ timezoneId: 'Europe/Berlin' });

  /** The page as it is now, light and dark at 1440 and 390 px: no sideways scroll, axe clean, a screenshot of each. */
  async function look(page: Page, name: string) {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [width, height] of [
        [1440, 900],
        [390, 844],
      ] as const) {
        await page.setViewportSize({ width, height });
        await noSidewaysScroll(page);
        expect.soft(await violations(page), `${name} ${width} ${scheme}`).toEqual([]);
        await shoot(page, `i35-${name}-${width}-${scheme}`);
      }
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  }

  test('a withdrawn approval (proposal page, Proposals list, History), hidden text, the revoke dialog and the invitation', async ({
    page,
    browser,
    request,
    baseURL,
  }) => {
    test.setTimeout(300_000);
    const origin = { origin: baseURL! };
    // A refund over 100.00 EUR needs two approvers: Bob approves, then his role drops to viewer.
    const refund = await proposeRefund(request, {
      orderId: QUEUE_FIFTY_ORDERS[15]!,
      amountMinor: 15_000,
      currency: 'EUR',
      reason: 'Damaged on arrival',
    });
    const bob = await apiSession(baseURL!, 'bob@acme.test');
    const carol = await apiSession(baseURL!, 'carol@acme.test');
    const members = (await (await carol.get('/api/v1/admin/members')).json()) as {
      members: { userId: string; email: string }[];
    };
    const bobId = members.members.find((m) => m.email === 'bob@acme.test')!.userId;
    try {
      expect(
        (
          await bob.post(`/api/v1/proposals/${refund.id}/decisions`, {
            headers: origin,
            data: { decision: 'approve', payloadHash: refund.payloadHash },
          })
        ).status(),
      ).toBeLessThan(300);
      expect(
        (await carol.patch(`/api/v1/admin/members/${bobId}`, { headers: origin, data: { role: 'viewer' } })).status(),
      ).toBeLessThan(300);
      // A long run of combining marks in an argument is flagged as hidden text.
      const marks = await proposeRefund(request, {
        orderId: QUEUE_FIFTY_ORDERS[14]!,
        amountMinor: 900,
        currency: 'EUR',
        reason: `Damaged${'\u0301\u0316'.repeat(40)} on arrival`,
      });

      await page.setViewportSize({ width: 1440, height: 900 });
      await page.goto(`/proposals/${refund.id}`);
      await signInWithForm(page, 'alice@acme.test');
      await expect(page.getByTestId('approval-withdrawn')).toContainText('their role changed to viewer');
      await expect(page.getByTestId('approval-progress')).toHaveText('0 of 2 approvals');
      await look(page, 'proposal-withdrawn');

      await page.goto(`/proposals/${marks.id}`);
      await expect(page.getByTestId('arg-reason').getByTestId('invisible-char')).toHaveText('⟦80 combining marks⟧');
      await look(page, 'proposal-combining-marks');

      await page.goto(`/proposals?q=${QUEUE_FIFTY_ORDERS[15]}`);
      const row = page.locator(`[data-testid="proposal-list-row"][data-proposal-id="${refund.id}"]`);
      await expect(row.getByTestId('proposal-list-progress')).toHaveText('0 of 2 approvals');
      await expect(row.locator('[data-testid="proposal-list-decider"][data-withdrawn="true"]')).toContainText(
        'Bob approved (withdrawn, not counted)',
      );
      await look(page, 'proposals-list-withdrawn');

      // Alice and Carol approve: it is approved by the two who stand, Bob's withdrawal still told.
      for (const api of [carol, page.request]) {
        expect(
          (
            await api.post(`/api/v1/proposals/${refund.id}/decisions`, {
              headers: origin,
              data: { decision: 'approve', payloadHash: refund.payloadHash },
            })
          ).status(),
        ).toBeLessThan(300);
      }
      await page.goto(`/proposals/${refund.id}`);
      await expect(page.getByTestId('decision-outcome')).toContainText('Approved by Carol and Alice');
      await expect(page.getByTestId('approval-withdrawn')).toBeVisible();
      await look(page, 'proposal-withdrawn-approved');

      for (const tab of ['decisions', 'events'] as const) {
        await page.goto(`/history?tab=${tab}`);
        await expect(page.getByTestId('history-page')).toBeVisible();
        await look(page, `history-${tab}`);
      }
    } finally {
      await carol.patch(`/api/v1/admin/members/${bobId}`, { headers: origin, data: { role: 'approver' } });
      await bob.dispose();
      await carol.dispose();
    }

    // Agent keys: a rotated agent, its new key's revoke dialog open.
    await page.context().clearCookies();
    await page.goto('/settings/agent-keys');
    await signInWithForm(page, 'carol@acme.test');
    const name = `shot-bot-${Date.now()}`;
    await page.getByTestId('agent-key-name').fill(name);
    await page.getByTestId('agent-key-action-hold_stock').check();
    await page.getByTestId('agent-key-grant-warehouses').fill('north');
    await page.getByTestId('agent-key-create').click();
    await expect(page.getByTestId('agent-key-secret')).toBeVisible();
    await look(page, 'agent-keys-copy-now');
    const card = page.locator('[data-testid="agent-key"][data-state="active"]').filter({ hasText: name });
    await card.getByTestId('agent-key-rotate').click();
    await card.getByTestId('agent-key-overlap-15').check();
    await card.getByTestId('agent-key-rotate-confirm').click();
    await expect(page.getByTestId('agent-key-secret-notice')).toContainText(`New key for ${name}`);
    await expect(
      page.locator('[data-testid="agent-key"][data-state="expiring"]').filter({ hasText: name }),
    ).toHaveCount(1);
    await card.getByTestId('agent-key-revoke').click();
    await expect(card.getByTestId('agent-key-stop-agent')).toBeFocused();
    await look(page, 'agent-keys-revoke-dialog');
    // Escape closes it and the keyboard is back on Revoke…; Enter opens it again.
    await page.keyboard.press('Escape');
    await expect(card.getByTestId('agent-key-revoke')).toBeFocused();
    await page.keyboard.press('Enter');
    await card.getByTestId('agent-key-revoke-confirm').click();
    await expect(page.getByTestId('agent-key-revoked-still-working')).toBeVisible();
    await look(page, 'agent-keys-revoked-one');

    await page.goto('/settings/security');
    await expect(page.getByTestId('security-page')).toBeVisible();
    await look(page, 'settings-security');

    // The invitation: prove the address first, then choose a password.
    await page.goto('/settings/members');
    const email = `shot-${Date.now()}@acme.test`;
    await page.getByTestId('invite-email').fill(email);
    await page.getByTestId('invite-name').fill('Shot Newcomer');
    await page.getByTestId('invite-role').selectOption('approver');
    await page.getByTestId('invite-submit').click();
    const link = (await page.getByTestId('invitation-link').textContent())!;
    const invited = await browser.newContext({ baseURL, timezoneId: 'Europe/Berlin' });
    try {
      const other = await invited.newPage();
      await other.goto(link);
      await expect(other.getByTestId('invitation-why-code')).toBeVisible();
      await look(other, 'invitation-prove');
      await other.getByTestId('invitation-code-send').click();
      await expect(other.getByTestId('invitation-code')).toBeFocused();
      await look(other, 'invitation-code-sent');
    } finally {
      await invited.close();
    }
  });
});
