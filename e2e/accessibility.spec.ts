import { expect, test } from '@playwright/test';
import { violations } from './axe';
import { proposeHold, signInWithForm } from './support';

// axe-core on every page an operator uses, light and dark: no serious or critical violation.

test('the sign-in page has no serious accessibility violation', async ({ page }) => {
  await page.goto('/signin');
  await expect(page.getByTestId('signin-form')).toBeVisible();
  expect(await violations(page)).toEqual([]);
});

test('every dashboard page has no serious accessibility violation, light and dark', async ({ page, request }) => {
  test.setTimeout(180_000); // 13 pages twice, axe on each, on a shared two-core machine
  const proposal = await proposeHold(request, 'acme');
  await page.goto('/');
  await signInWithForm(page, 'carol@acme.test');
  const pages = ['/', `/proposals/${proposal.id}`, `/proposals/${proposal.id}/edit`, '/proposals', '/history', '/history?view=events', '/contracts', '/contracts/attempts', '/settings', '/settings/agent-keys', '/settings/members', '/settings/policies', '/settings/notifications'];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const path of pages) {
      await page.goto(path);
      await page.waitForLoadState('networkidle');
      expect.soft(await violations(page), `${path} (${scheme})`).toEqual([]);
    }
  }
});
