import path from 'node:path';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { violations } from './axe';
import { apiSession, codeEmailedTo, signInWithForm } from './support';

/**
 * Settings → Members against the production server: an invitation link works once and makes a
 * member, who proves the address with the emailed code and then chooses a password, and signs in
 * with the role; a role change holds from the next request; removal signs the
 * person out at once; the last admin stays; the admin API refuses everyone else. Acme is left as
 * seeded (the suite shares one server).
 */

const API = '/api/v1/admin/members';
const NEWBIE = 'newbie@acme.test';
const NEWBIE_PASSWORD = 'correct horse battery staple';
const dir = process.env.SCREENSHOT_DIR ?? 'test-results/screenshots';

type Member = { userId: string; email: string; role: string };
type Listing = { members: Member[]; invitations: { id: string; email: string }[] };

async function listing(api: APIRequestContext): Promise<Listing> {
  const response = await api.get(API);
  expect(response.status()).toBe(200);
  return (await response.json()) as Listing;
}

async function openAsCarol(page: Page) {
  await page.goto('/settings/members');
  await signInWithForm(page, 'carol@acme.test');
  await expect(page).toHaveURL(/\/settings\/members$/);
  await expect(page.getByTestId('members-panel')).toBeVisible();
}

async function invite(page: Page, email: string, name: string, role: string): Promise<string> {
  await page.getByTestId('invite-email').fill(email);
  await page.getByTestId('invite-name').fill(name);
  await page.getByTestId('invite-role').selectOption(role);
  await page.getByTestId('invite-submit').click();
  const link = (await page.getByTestId('invitation-link').textContent())!;
  expect(link).toMatch(/^http:\/\/localhost:\d+\/invite\/[A-Za-z0-9_-]{43}$/);
  return link;
}

const memberRow = (page: Page, email: string) => page.locator(`[data-testid="member"][data-email="${email}"]`);

async function noSidewaysScroll(page: Page) {
  expect(
    await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
  ).toBeLessThanOrEqual(0);
}

test('an admin invites someone: the link works once, the role holds from the next request, and removal signs them out', async ({
  page,
  browser,
  baseURL,
}) => {
  await openAsCarol(page);
  const link = await invite(page, NEWBIE, 'Newbie', 'approver');
  await expect(page.getByTestId('invitation-link-notice')).toContainText('shown only now');
  await expect(page.locator(`[data-testid="invitation-pending"][data-email="${NEWBIE}"]`)).toBeVisible();
  const token = link.split('/invite/')[1]!;

  const newbie = await browser.newContext({ baseURL });
  const other = await newbie.newPage();
  try {
    // A fresh browser, signed out: the page names the tenant, the role and the email.
    await other.goto(link);
    await expect(other.getByTestId('invitation-tenant')).toHaveText('Acme');
    await expect(other.getByTestId('invitation-role')).toHaveText('approver');
    await expect(other.getByTestId('invitation-email')).toHaveText(NEWBIE);
    // Holding the link is not enough: the address's owner proves it with the emailed code first.
    await expect(other.getByTestId('invitation-why-code')).toContainText('Only the owner of the address');
    await expect(other.getByTestId('invitation-form')).toHaveCount(0);
    await other.getByTestId('invitation-code-send').focus();
    await other.keyboard.press('Enter');
    await expect(other.getByTestId('invitation-code-sent')).toContainText(NEWBIE);
    // The keyboard lands on the code field; Tab goes on to the password.
    await expect(other.getByTestId('invitation-code')).toBeFocused();
    await other.keyboard.type(await codeEmailedTo(other.request, NEWBIE));
    await other.keyboard.press('Tab');
    await expect(other.getByTestId('invitation-password')).toBeFocused();
    await other.getByTestId('invitation-password').fill(NEWBIE_PASSWORD);
    await other.getByTestId('invitation-confirm').fill(`${NEWBIE_PASSWORD}!`);
    await other.getByTestId('invitation-accept').click();
    await expect(other.getByTestId('invitation-mismatch')).toBeVisible();
    await other.getByTestId('invitation-confirm').fill(NEWBIE_PASSWORD);
    await other.getByTestId('invitation-accept').click();

    // Sign-in, the email filled in; then the queue, as an approver.
    await expect(other).toHaveURL(/\/signin\?/);
    await expect(other.getByTestId('signin-invited')).toBeVisible();
    await expect(other.getByTestId('signin-email')).toHaveValue(NEWBIE);
    await other.getByTestId('signin-password').fill(NEWBIE_PASSWORD);
    await other.getByTestId('signin-submit').click();
    await expect(other).toHaveURL(/\/$/);
    await expect(other.getByRole('heading', { name: 'Pending approval' })).toBeVisible();
    await expect(other.getByTestId('signed-in-as')).toContainText('approver');

    // The link is dead: the page says so, and a POST with it is refused.
    await other.goto(link);
    await expect(other.getByTestId('invitation-gone')).toHaveAttribute('data-state', 'used');
    const again = await other.request.post('/api/v1/invitations/accept', {
      headers: { origin: baseURL! },
      data: { token, code: '123456', password: 'another long password' },
    });
    expect(again.status()).toBe(410);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('invitation_used');

    // Carol makes newbie a viewer: it holds from newbie's next request.
    await page.reload();
    const row = memberRow(page, NEWBIE);
    await expect(row).toHaveAttribute('data-role', 'approver');
    await row.getByTestId('member-role').selectOption('viewer');
    await row.getByTestId('member-role-save').click();
    await expect(row).toHaveAttribute('data-role', 'viewer');
    await other.goto('/');
    await expect(other.getByTestId('signed-in-as')).toContainText('viewer');

    // Carol removes newbie: newbie's next request sees nothing of acme (the session, which could
    // serve another tenant, is not acme's to end).
    await row.getByTestId('member-remove').click();
    await expect(row.getByTestId('member-remove-no')).toBeFocused();
    await row.getByTestId('member-remove-yes').click();
    await expect(row).toHaveCount(0);
    await other.goto('/');
    await expect(other.getByTestId('no-membership')).toBeVisible();
  } finally {
    await newbie.close();
    // Leave acme as seeded even when a step above failed.
    const carol = await apiSession(baseURL!, 'carol@acme.test');
    const left = (await listing(carol)).members.find((m) => m.email === NEWBIE);
    if (left) await carol.delete(`${API}/${left.userId}`, { headers: { origin: baseURL! } });
    await carol.dispose();
  }
});

test('the last admin keeps her role, and the admin API refuses everyone else', async ({ page, baseURL }) => {
  const carol = await apiSession(baseURL!, 'carol@acme.test');
  const alice = await apiSession(baseURL!, 'alice@acme.test');
  const erin = await apiSession(baseURL!, 'erin@globex.test');
  const origin = { origin: baseURL! };
  try {
    const carolId = (await listing(carol)).members.find((m) => m.email === 'carol@acme.test')!.userId;
    for (const attempt of [
      carol.patch(`${API}/${carolId}`, { headers: origin, data: { role: 'viewer' } }),
      carol.delete(`${API}/${carolId}`, { headers: origin }),
    ]) {
      const response = await attempt;
      expect(response.status(), await response.text()).toBe(409);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('last_admin');
    }

    // Another tenant's person and an unknown id: the same 404.
    const erinId = ((await (await erin.get('/api/auth/session')).json()) as { operatorId: string }).operatorId;
    expect(erinId).toMatch(/^usr_/);
    const bodies = new Set<string>();
    for (const id of [erinId, 'usr_00000000000000000000']) {
      for (const response of [
        await carol.patch(`${API}/${id}`, { headers: origin, data: { role: 'viewer' } }),
        await carol.delete(`${API}/${id}`, { headers: origin }),
      ]) {
        expect(response.status()).toBe(404);
        bodies.add(await response.text());
      }
    }
    expect(bodies.size).toBe(1);

    // An approver gets 403 on every admin route; a bad body and a foreign origin are refused too.
    for (const response of [
      await alice.get(API),
      await alice.post(API, { headers: origin, data: { email: 'x@acme.test', name: 'X', role: 'admin' } }),
      await alice.patch(`${API}/${carolId}`, { headers: origin, data: { role: 'viewer' } }),
      await alice.delete(`${API}/${carolId}`, { headers: origin }),
    ]) {
      expect(response.status()).toBe(403);
    }
    const bad = await carol.post(API, {
      headers: origin,
      data: { email: 'not an email', name: '', role: 'owner', tenant: 'globex' },
    });
    expect(bad.status()).toBe(422);
    const issues = ((await bad.json()) as { error: { issues: { field: string }[] } }).error.issues
      .map((i) => i.field)
      .sort();
    expect(issues).toEqual(['email', 'name', 'role', 'tenant']);
    expect(
      (
        await carol.post(API, {
          headers: { origin: 'https://evil.example' },
          data: { email: 'x@acme.test', name: 'X', role: 'viewer' },
        })
      ).status(),
    ).toBe(403);
    expect(
      (
        await carol.post(API, { headers: origin, data: { email: 'alice@acme.test', name: 'Alice', role: 'viewer' } })
      ).status(),
    ).toBe(409);

    // In the page: carol's own controls are disabled, with the reason; alice sees the list read-only.
    await openAsCarol(page);
    const own = memberRow(page, 'carol@acme.test');
    await expect(own.getByTestId('member-role')).toBeDisabled();
    await expect(own.getByTestId('member-remove')).toBeDisabled();
    await expect(own.getByTestId('member-last-admin')).toContainText('The only admin of Acme');
  } finally {
    await Promise.all([carol.dispose(), alice.dispose(), erin.dispose()]);
  }
});

test('an approver sees the members read-only; an unknown link says so', async ({ page }) => {
  await page.goto('/settings/members');
  await signInWithForm(page, 'alice@acme.test');
  await expect(page.getByTestId('members-read-only')).toBeVisible();
  await expect(page.getByTestId('member')).not.toHaveCount(0);
  await expect(page.getByTestId('member-role')).toHaveCount(0);
  await expect(page.getByTestId('invite-form')).toHaveCount(0);
  await page.goto(`/invite/${'x'.repeat(43)}`);
  await expect(page.getByTestId('invitation-gone')).toHaveAttribute('data-state', 'unknown');
});

test('the members and invitation pages at desktop and phone widths, light and dark', async ({
  page,
  browser,
  baseURL,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await openAsCarol(page);
  const link = await invite(page, 'screenshot@acme.test', 'Sam Screenshot', 'viewer');
  const stranger = await browser.newContext({ baseURL });
  const invitee = await stranger.newPage();
  try {
    // The invitation page at its second step: the code is on its way, the code and password fields show.
    await invitee.goto(link);
    await invitee.getByTestId('invitation-code-send').click();
    await expect(invitee.getByTestId('invitation-code-sent')).toBeVisible();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await invitee.emulateMedia({ colorScheme: scheme });
      for (const [label, width, height] of [
        ['', 1440, 900],
        ['-phone', 390, 844],
      ] as const) {
        await page.setViewportSize({ width, height });
        await invitee.setViewportSize({ width, height });
        await expect(page.getByTestId('invitation-pending')).toBeVisible();
        await noSidewaysScroll(page);
        await page.screenshot({ path: path.join(dir, `settings-members${label}-${scheme}.png`), fullPage: true });
        await expect(invitee.getByTestId('invitation-form')).toBeVisible();
        await noSidewaysScroll(invitee);
        expect(await violations(invitee)).toEqual([]);
        await invitee.screenshot({ path: path.join(dir, `invitation${label}-${scheme}.png`), fullPage: true });
      }
    }
    // Cancelling the invitation kills its link.
    await page
      .locator('[data-testid="invitation-pending"][data-email="screenshot@acme.test"]')
      .getByTestId('invitation-cancel')
      .click();
    await expect(page.locator('[data-testid="invitation-pending"][data-email="screenshot@acme.test"]')).toHaveCount(0);
    await invitee.goto(link);
    await expect(invitee.getByTestId('invitation-gone')).toHaveAttribute('data-state', 'expired');
  } finally {
    await stranger.close();
  }
});
