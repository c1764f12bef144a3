import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { apiSession, ownAgent, proposeHold, signInWithForm } from './support';

/**
 * Issue 24's density: at 1440×900 the queue shows at least 12 whole rows above the fold; on a
 * 390×844 phone the first row starts in the top 300 px (navigation in a sheet, filters behind one
 * button, batch buttons only while something is selected, "Sign out everywhere" in the account
 * menu); row titles never break inside a word; and no dashboard page scrolls sideways at either width.
 *
 * Isolation: the 24 proposals come from an agent key made for this test; bob rejects them at the end.
 */

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

async function seed(
  baseURL: string,
  request: APIRequestContext,
  count: number,
): Promise<{ agent: string; ids: string[]; made: Made[] }> {
  const agent = await ownAgent(baseURL, 'density-support-bot', { actions: ['hold_stock'] });
  const made: Made[] = [];
  for (let i = 0; i < count; i++)
    made.push(await proposeHold(request, agent, { sku: 'filter-gray', quantity: 1 + (i % 2) }));
  return { agent: agent.name, ids: made.map((p) => p.id), made };
}

type Made = { id: string; payloadHash: string };

async function rejectAll(baseURL: string, made: Made[]) {
  const bob = await apiSession(baseURL, 'bob@acme.test');
  for (const { id, payloadHash } of made) {
    await bob.post(`/api/v1/proposals/${id}/decisions`, {
      headers: { origin: baseURL },
      data: { decision: 'reject', payloadHash, reason: 'Density test done' },
    });
  }
  await bob.dispose();
}

async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/** How many queue rows lie wholly inside the window. */
async function rowsAboveFold(page: Page): Promise<number> {
  const height = page.viewportSize()!.height;
  const boxes = await page
    .getByTestId('queue-item')
    .evaluateAll((rows) => rows.map((row) => row.getBoundingClientRect().toJSON() as DOMRect));
  return boxes.filter((box) => box.top >= 0 && box.bottom <= height).length;
}

test('the queue is dense at 1440×900 and starts near the top on a phone; words never break inside', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const { agent, ids, made } = await seed(baseURL!, request, 24);
  try {
    await page.setViewportSize(DESKTOP);
    await page.goto('/?group=all&sort=newest');
    await signInWithForm(page, 'alice@acme.test');
    await expect(page.getByTestId('queue-item')).not.toHaveCount(0);
    expect(await page.getByTestId('queue-item').count()).toBeGreaterThanOrEqual(24);
    expect(await rowsAboveFold(page)).toBeGreaterThanOrEqual(12);
    const heights = await page
      .getByTestId('queue-item')
      .evaluateAll((rows) => rows.map((row) => row.getBoundingClientRect().height));
    expect(Math.max(...heights)).toBeLessThanOrEqual(64);

    // Row titles: one line, cut with an ellipsis, never broken inside a word; the whole sentence is the title.
    const first = page.getByTestId('queue-item').first();
    const title = first.getByTestId('queue-item-link');
    const style = await title.evaluate((link) => {
      const css = getComputedStyle(link);
      return {
        overflowWrap: css.overflowWrap,
        wordBreak: css.wordBreak,
        whiteSpace: css.whiteSpace,
        textOverflow: css.textOverflow,
      };
    });
    expect(style).toEqual({
      overflowWrap: 'normal',
      wordBreak: 'normal',
      whiteSpace: 'nowrap',
      textOverflow: 'ellipsis',
    });
    await expect(title).toHaveAttribute('title', /^Hold \d+ × filter-gray/);
    // Batch buttons appear only when something is selected.
    await expect(page.getByTestId('queue-approve-selected')).toHaveCount(0);
    await page.getByTestId(`queue-select-${ids.at(-1)}`).check();
    await expect(page.getByTestId('queue-approve-selected')).toHaveText('Approve 1 selected');
    await page.getByTestId(`queue-select-${ids.at(-1)}`).uncheck();
    await expect(page.getByTestId('queue-approve-selected')).toHaveCount(0);

    await page.setViewportSize(PHONE);
    await expect(page.getByTestId('nav-menu')).toBeVisible();
    await expect(page.getByTestId('nav-history')).toBeHidden();
    await expect(page.getByTestId('queue-filters-open')).toBeVisible();
    await expect(page.getByTestId('queue-sort')).toBeHidden();
    const top = await page
      .getByTestId('queue-item')
      .first()
      .evaluate((row) => row.getBoundingClientRect().top);
    expect(top).toBeLessThan(300);
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    // The agent's name (with hyphens) and every word of the title each sit on one line.
    const row = page.locator(`[data-testid="queue-item"][data-proposal-id="${ids.at(-1)}"]`);
    await expect(row.getByTestId('queue-item-agent')).toHaveText(agent);
    expect(await row.getByTestId('queue-item-agent').evaluate((span) => span.getClientRects().length)).toBe(1);
    expect(
      await row.getByTestId('queue-item-link').evaluate((link) => link.getBoundingClientRect().height),
    ).toBeLessThanOrEqual(24);

    // Filters behind one button, in a sheet; the same URL-backed choices.
    await page.getByTestId('queue-filters-open').click();
    const filters = page.getByTestId('queue-filters-sheet');
    await expect(filters).toBeVisible();
    await expect(filters.getByTestId('queue-sort')).toHaveValue('newest');
    await page.keyboard.press('Escape');
    await expect(filters).toBeHidden();

    // The navigation in a sheet.
    await page.getByTestId('nav-menu').click();
    const sheet = page.getByTestId('nav-sheet');
    await expect(sheet.getByTestId('nav-queue')).toHaveAttribute('aria-current', 'page');
    await sheet.getByTestId('nav-history').click();
    await expect(page).toHaveURL(/\/history$/);
    await expect(sheet).toBeHidden();

    // "Sign out everywhere" is in the account menu, not beside the navigation.
    await expect(page.getByTestId('sign-out-everywhere')).toHaveCount(0);
    await page.getByTestId('account-menu').click();
    await expect(page.getByTestId('sign-out-everywhere')).toBeVisible();
    await expect(page.getByTestId('sign-out')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('sign-out-everywhere')).toHaveCount(0);
  } finally {
    await rejectAll(baseURL!, made);
  }
});

test('no dashboard page scrolls sideways at 1440 or 390 px', async ({ page, request, baseURL }) => {
  test.setTimeout(180_000);
  const hold = await proposeHold(request, 'acme', { sku: 'filter-gray', quantity: 1 });
  try {
    await page.goto('/history');
    await signInWithForm(page, 'carol@acme.test');
    await expect(page.getByTestId('history-page')).toBeVisible();
    const pages = [
      '/',
      '/?group=all',
      '/proposals',
      `/proposals/${hold.id}`,
      '/history',
      '/history?tab=events',
      '/contracts',
      '/settings',
      '/settings/agent-keys',
      '/settings/members',
      '/settings/notifications',
      '/settings/policies',
    ];
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      for (const path of pages) {
        await page.goto(path);
        await expect(page.locator('main#main')).toBeVisible();
        expect(await sidewaysOverflow(page), `${path} at ${size.width} px`).toBeLessThanOrEqual(0);
      }
    }
  } finally {
    await rejectAll(baseURL!, [hold]);
  }
});
