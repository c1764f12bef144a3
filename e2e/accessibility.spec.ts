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
  test.setTimeout(180_000); // 14 pages twice, axe on each, on a shared two-core machine
  const proposal = await proposeHold(request, 'acme');
  await page.goto('/');
  await signInWithForm(page, 'carol@acme.test');
  const pages = [
    '/',
    `/proposals/${proposal.id}`,
    `/proposals/${proposal.id}/edit`,
    '/proposals',
    '/history',
    '/history?view=events',
    '/contracts',
    '/contracts/attempts',
    '/settings',
    '/settings/agent-keys',
    '/settings/members',
    '/settings/policies',
    '/settings/notifications',
    '/settings/security',
  ];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const path of pages) {
      await page.goto(path);
      await page.waitForLoadState('networkidle');
      expect.soft(await violations(page), `${path} (${scheme})`).toEqual([]);
    }
  }
});

test('on a phone, the navigation sheet, the filters sheet and the account menu have no serious accessibility violation', async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/');
  await signInWithForm(page, 'alice@acme.test');
  for (const [open, testId] of [
    ['nav-menu', 'nav-sheet'],
    ['queue-filters-open', 'queue-filters-sheet'],
    ['account-menu', 'account-menu-content'],
  ] as const) {
    await page.getByTestId(open).click();
    await expect(page.getByTestId(testId)).toBeVisible();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect.soft(await violations(page), `${testId} (${scheme})`).toEqual([]);
    }
    await page.keyboard.press('Escape');
    await expect(page.getByTestId(testId)).toBeHidden();
    // Focus goes back to the button that opened it.
    await expect(page.getByTestId(open)).toBeFocused();
  }
});

test('the queue’s approve and reject dialogs have no serious accessibility violation, light and dark, at 1440 and 390 px', async ({
  page,
  request,
}) => {
  // Four of filter-blue is medium risk: `a` stops at the dialog.
  const hold = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 4 });
  await page.goto('/');
  await signInWithForm(page, 'alice@acme.test');
  await expect(page.getByTestId('queue')).toBeVisible();
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.goto('/?sort=newest');
    await expect(page.getByTestId('queue')).toHaveAttribute('data-keys-ready', 'true');
    const link = page
      .locator(`[data-testid="queue-item"][data-proposal-id="${hold.id}"]`)
      .getByTestId('queue-item-link');
    for (const [key, testId] of [
      ['a', 'queue-approve-dialog'],
      ['r', 'queue-reject-dialog'],
    ] as const) {
      await link.focus();
      await page.keyboard.press(key);
      await expect(page.getByTestId(testId)).toBeVisible();
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect.soft(await violations(page), `${testId} at ${width} (${scheme})`).toEqual([]);
      }
      await page.keyboard.press('Escape');
      await expect(page.getByTestId(testId)).toBeHidden();
      await expect(link).toBeFocused();
    }
  }
});
