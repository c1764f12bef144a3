import { expect, test } from '@playwright/test';
import { proposeHold, signInWithForm } from './support';

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
