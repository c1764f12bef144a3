import { expect, type Page, test } from '@playwright/test';
import { apiSession, checkpointOf, proposeHold } from './support';

// Single sign-on against a real OpenID Connect provider (e2e/oidc-provider.ts, started by
// playwright.config.ts). Its accounts: alice (verified, a Countersign approver), mallory
// (verified, not a Countersign person) and bob (a Countersign person whose email the provider
// reports as unverified).

const issuerOrigin = `http://localhost:${process.env.E2E_OIDC_PORT ?? 3211}`;

/** From the sign-in page: through the provider's login (and consent, if asked) and back. */
async function continueWithSso(page: Page, accountId: string) {
  await expect(page.getByTestId('signin-sso')).toHaveText('Continue with Test IdP');
  await page.getByTestId('signin-sso').click();
  await page.waitForURL((url) => url.origin === issuerOrigin && url.pathname.startsWith('/interaction/'));
  await page.locator('input[name="login"]').fill(accountId);
  await page.locator('input[name="password"]').fill('any password: the test provider checks none');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  // The provider asks for consent the first time a client wants the email and profile scopes.
  const consent = page.getByRole('button', { name: 'Continue' });
  const backAtApp = () => new URL(page.url()).origin !== issuerOrigin;
  await expect.poll(async () => backAtApp() || (await consent.isVisible())).toBe(true);
  if (!backAtApp()) await consent.click();
  await page.waitForURL((url) => url.origin !== issuerOrigin);
}

async function expectSignedOut(page: Page) {
  const session = await page.request.get('/api/auth/session');
  expect(await session.json()).toBeNull();
  await page.goto('/');
  await expect(page).toHaveURL(/\/signin\?callbackUrl=%2F$/);
  await expect(page.getByTestId('signin-form')).toBeVisible();
}

test('alice signs in with SSO and lands on the deep link she asked for', async ({ page, request }) => {
  const proposal = await proposeHold(request, 'acme');
  await page.goto(`/proposals/${proposal.id}`);
  await expect(page).toHaveURL(/\/signin\?callbackUrl=/);
  await continueWithSso(page, 'alice');
  await expect(page).toHaveURL(new RegExp(`^http://localhost:\\d+/proposals/${proposal.id}$`));
  await expect(page.getByTestId('proposal-page')).toBeVisible();
  // She is Countersign's Alice (our name and role, not the provider's display name).
  await expect(page.getByTestId('signed-in-as')).toHaveText('Alice · approver');
  await expect(page.getByTestId('approve')).toBeVisible();
  const session = (await (await page.request.get('/api/auth/session')).json()) as {
    operatorId?: string;
    user?: { email?: string };
  };
  expect(session.operatorId).toMatch(/\S/);
  expect(session.user?.email).toBe('alice@acme.test');
});

// A refusal naming a Countersign person is one `auth.sign_in_failed` event in their tenant; a
// stranger's leaves nothing anywhere (the watcher reads acme's chain head).
const REFUSED: [string, string, number][] = [
  ['mallory', 'a verified email that is not a Countersign person', 0],
  ['bob', 'a Countersign person whose email the provider says is unverified', 1],
];
for (const [accountId, why, events] of REFUSED) {
  test(`SSO refuses ${accountId}: ${why}`, async ({ page, request, baseURL }) => {
    const proposal = await proposeHold(request, 'acme');
    const watcher = await apiSession(baseURL!, 'carol@acme.test');
    const head = async () => (await checkpointOf(watcher)).seq;
    const before = await head();
    await page.goto(`/proposals/${proposal.id}`);
    await continueWithSso(page, accountId);
    await expect(page).toHaveURL(/^http:\/\/localhost:\d+\/signin\?.*error=AccessDenied/);
    await expect(
      page.getByText('Sign-in failed. Check your details, or ask an administrator to add you.'),
    ).toBeVisible();
    await expect(page.getByTestId('proposal-page')).toHaveCount(0);
    expect(await head()).toBe(before + events);
    await watcher.dispose();
    await expectSignedOut(page);
  });
}
