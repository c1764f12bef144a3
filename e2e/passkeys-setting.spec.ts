import { expect, test } from '@playwright/test';
import { violations } from './axe';
import { apiSession, signInWithForm } from './support';

/**
 * The tenant's "every approval must be signed with a passkey" in Settings → Security: an admin sees
 * it and turns it on (after confirming) and off; an approver does not see it. What turning it on
 * does to grants and approvals is tested in lib/passkeys/settings-route.int.test.ts and
 * lib/grants/grants.int.test.ts. Later specs approve without passkeys: acme ends with it off,
 * whatever failed.
 */

test.afterEach(async ({ baseURL }) => {
  const carol = await apiSession(baseURL!, 'carol@acme.test');
  const off = await carol.put('/api/v1/admin/passkeys/settings', {
    headers: { origin: baseURL! },
    data: { requirePasskeys: false },
  });
  expect(off.status()).toBe(200);
  await carol.dispose();
});

test('an admin requires passkeys in their tenant after confirming, and stops requiring them; the page has no serious accessibility violation', async ({
  page,
}) => {
  await page.goto('/settings/security');
  await signInWithForm(page, 'carol@acme.test');
  const section = page.getByTestId('tenant-passkeys');
  await expect(section.getByRole('heading', { name: 'Passkeys in Acme' })).toBeVisible();
  const box = section.getByRole('checkbox', { name: 'Every approval must be signed with a passkey' });
  await expect(box).not.toBeChecked();
  await expect(section.getByTestId('tenant-passkeys-count')).toHaveText(/^\d+ of 4 members (has|have) a passkey\.$/);
  await expect(section).toContainText('Turning it on ends every standing grant of Acme');
  await page.waitForLoadState('networkidle');
  expect(await violations(page)).toEqual([]);

  // Cancelling the confirmation changes nothing.
  await box.click();
  const confirm = page.getByRole('dialog', { name: 'Require a passkey on every approval in Acme?' });
  await expect(confirm).toContainText('Every standing grant of Acme ends now.');
  expect(await violations(page)).toEqual([]);
  await confirm.getByTestId('tenant-passkeys-cancel').click();
  await expect(confirm).toBeHidden();
  await expect(box).toBeFocused();
  await page.reload();
  await expect(box).not.toBeChecked();

  await box.click();
  await confirm.getByTestId('tenant-passkeys-turn-on').click();
  await expect(confirm).toBeHidden();
  await expect(box).toBeChecked();
  await page.reload();
  await expect(box).toBeChecked();

  // Off again, without a confirmation.
  await box.click();
  await expect(box).not.toBeChecked();
  await expect(confirm).toHaveCount(0);
  await page.reload();
  await expect(box).not.toBeChecked();
});

test('an approver does not see the tenant setting', async ({ page }) => {
  await page.goto('/settings/security');
  await signInWithForm(page, 'alice@acme.test');
  await expect(page.getByTestId('passkeys')).toBeVisible();
  await expect(page.getByTestId('tenant-passkeys')).toHaveCount(0);
  await expect(page.getByText('Every approval must be signed with a passkey')).toHaveCount(0);
});
