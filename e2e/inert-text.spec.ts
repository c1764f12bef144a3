import { expect, test } from '@playwright/test';
import { agentKey, proposeRefund, signInWithForm, uniqueRequestId } from './support';

// Text from agents and external parties is shown, never run: markup stays text, links are not
// clickable, and direction-changing or invisible characters become visible badges.
const HOSTILE =
  '<script>alert(1)</script> <img src=x onerror=alert(2)> [click me](javascript:alert(3)) https://evil.test/x \u202Egnp.exe\u202C zero\u200Bwidth';

// Every bidi control (embeddings, overrides, isolates, marks) and zero-width character: none may
// reach the page as itself, wherever agent text is shown.
const HIDDEN = /[\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/gu;
const hiddenCharacters = (text: string | null) =>
  [...(text ?? '').matchAll(HIDDEN)].map(([ch]) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase()}`);

test('hostile text in arguments and evidence renders as inert, visible text', async ({ page, request }) => {
  const proposal = await proposeRefund(
    request,
    { orderId: 'ord_1843', amountMinor: 700, currency: 'EUR', reason: HOSTILE },
    ['ticket_message_74'],
  );
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
  await page.getByTestId('canonical-json').locator('summary').click();
  for (const view of ['canonical-json', 'raw-candidate']) {
    await expect(page.getByTestId(view).getByTestId('invisible-char')).toHaveText(['⟦U+202E⟧', '⟦U+202C⟧', '⟦U+200B⟧']);
  }
  expect(hiddenCharacters(await page.getByTestId('proposal-page').textContent())).toEqual([]);
  expect(dialogs).toEqual([]);
  expect(offSite).toEqual([]);
});

test('a rejected attempt shows its body as received with bidi and zero-width characters as badges', async ({
  page,
  request,
}) => {
  const requestId = uniqueRequestId('bidi');
  const response = await request.post('/api/v1/proposals', {
    headers: { authorization: `Bearer ${agentKey('acme')}`, 'content-type': 'application/json' },
    data: {
      requestId,
      action: 'issue_refund',
      contractVersion: 1,
      args: {
        orderId: 'ord_1842',
        amountMinor: '700',
        currency: 'USD',
        reason: 'refund \u202Etxt.exe\u202C \u2066isolated\u2069 zero\u200Bwidth',
      },
      evidenceRefs: [],
    },
  });
  expect(response.status()).toBe(422);

  await page.goto('/contracts/attempts');
  await signInWithForm(page, 'alice@acme.test');
  const attempt = page
    .getByTestId('attempt')
    .filter({ has: page.getByTestId('attempt-request-id').getByText(requestId, { exact: true }) });
  await expect(attempt).toHaveCount(1);
  await attempt.locator('summary').click();
  const raw = attempt.getByTestId('attempt-raw');
  await expect(raw).toContainText('"amountMinor":"700"');
  await expect(raw.getByTestId('invisible-char')).toHaveText([
    '⟦U+202E⟧',
    '⟦U+202C⟧',
    '⟦U+2066⟧',
    '⟦U+2069⟧',
    '⟦U+200B⟧',
  ]);
  expect(hiddenCharacters(await page.getByTestId('attempts').textContent())).toEqual([]);
});
