import { expect, test } from '@playwright/test';
import { proposeRefund, signInWithForm } from './support';

// Text from agents and external parties is shown, never run: markup stays text, links are not
// clickable, and direction-changing or invisible characters become visible badges.
const HOSTILE =
  '<script>alert(1)</script> <img src=x onerror=alert(2)> [click me](javascript:alert(3)) https://evil.test/x \u202Egnp.exe\u202C zero\u200Bwidth';

test('hostile text in arguments and evidence renders as inert, visible text', async ({ page, request }) => {
  const proposal = await proposeRefund(request, { orderId: 'ord_1843', amountMinor: 700, currency: 'EUR', reason: HOSTILE }, ['ticket_message_74']);
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  const offSite: string[] = [];
  page.on('request', (req) => {
    if (!req.url().startsWith('http://localhost')) offSite.push(req.url());
  });

  await page.goto(`/proposals/${proposal.id}`);
  await signInWithForm(page, 'alice@acme.test');
  const reason = page.getByTestId('arg-reason');
  await expect(reason).toContainText('<script>alert(1)</script>');
  await expect(reason).toContainText('<img src=x onerror=alert(2)>');
  await expect(reason).toContainText('[click me](javascript:alert(3))');
  await expect(reason.getByTestId('invisible-char')).toHaveText(['⟦U+202E⟧', '⟦U+202C⟧', '⟦U+200B⟧']);
  await expect(page.getByTestId('proposal-page').locator('img, script:not([src]), iframe')).toHaveCount(0);
  await expect(page.getByTestId('evidence').locator('a')).toHaveCount(0);
  await expect(page.getByTestId('evidence')).toContainText('<script>alert(1)</script>');
  await page.getByTestId('raw-candidate').locator('summary').click();
  await expect(page.getByTestId('raw-candidate')).toContainText('onerror=alert(2)');
  expect(dialogs).toEqual([]);
  expect(offSite).toEqual([]);
});
