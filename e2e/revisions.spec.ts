import { expect, test } from '@playwright/test';
import { apiSession, proposeRefund, signInWithForm } from './support';

test('approvers edit a proposal: re-gated revisions with a diff, which someone outside the chain must approve', async ({
  browser,
  request,
  baseURL,
}) => {
  // ord_1842 (charged 49.99 USD) can never reach the two-approver bound, whatever other specs refunded on it today.
  const original = await proposeRefund(request, {
    orderId: 'ord_1842',
    amountMinor: 300,
    currency: 'USD',
    reason: 'Damaged parcel',
  });

  const alice = await browser.newPage({ baseURL });
  await alice.goto(`/proposals/${original.id}`);
  await signInWithForm(alice, 'alice@acme.test');
  await alice.getByTestId('edit-proposal').click();
  await expect(alice).toHaveURL(new RegExp(`/proposals/${original.id}/edit$`));

  // The order and its currency name what is refunded: shown, not editable.
  for (const locked of ['orderId', 'currency']) {
    await expect(alice.getByTestId(`revision-locked-${locked}`)).toBeVisible();
    await expect(alice.getByTestId(`revision-locked-${locked}`).locator('input, select, textarea')).toHaveCount(0);
    await expect(alice.getByTestId(`revision-${locked}`)).toHaveCount(0);
  }
  await expect(alice.getByTestId('revision-locked-orderId')).toContainText('ord_1842');
  // Money is typed in major units beside its currency, with the live limit in words.
  await expect(alice.getByTestId('revision-amountMinor')).toHaveValue('3.00');
  await expect(alice.getByTestId('revision-currency-amountMinor')).toHaveText('USD');
  await expect(alice.getByTestId('revision-limit')).toHaveText(/^ · at most \d+\.\d{2} USD \(still refundable\)$/);

  // What the form can see is refused before anything is sent, in words; nothing is created.
  for (const [typed, words] of [
    ['2.345', 'USD has 2 decimals: 2.345 has 3.'],
    ['1e3', 'no sign, spaces, commas or exponent'],
    ['100000', 'USD (still refundable); 100000.00 USD is too much.'],
  ] as const) {
    await alice.getByTestId('revision-amountMinor').fill(typed);
    await alice.getByTestId('revision-submit').click();
    await expect(alice.getByTestId('revision-issue-amountMinor')).toContainText(words);
  }
  await expect(alice).toHaveURL(new RegExp(`/proposals/${original.id}/edit$`));

  // Every edit says why: without a reason (or with only blank space) nothing is sent.
  await alice.getByTestId('revision-amountMinor').fill('2.00');
  await expect(alice.getByLabel('Reason for the change')).toHaveAttribute('maxlength', '500');
  for (const blank of ['', '   ']) {
    await alice.getByTestId('revision-why').fill(blank);
    await alice.getByTestId('revision-submit').click();
    await expect(alice.getByTestId('revision-why-problem')).toHaveText('Say why you are changing it.');
    await expect(alice.getByTestId('revision-why')).toHaveAttribute('aria-invalid', 'true');
  }
  await expect(alice).toHaveURL(new RegExp(`/proposals/${original.id}/edit$`));
  // The reason is the operator's own text, shown inertly: markup stays text.
  const why = 'Customer kept one item <b>see ticket</b>';
  await alice.getByLabel('Reason for the change').fill(why);
  await alice.getByTestId('revision-submit').click();
  await expect(alice).not.toHaveURL(new RegExp(`/proposals/${original.id}`));
  await expect(alice.getByTestId('revision-diff')).toContainText(`Revision of ${original.id}`);
  await expect(alice.getByTestId('revision-diff')).toContainText(`edited by Alice: “${why}”`);
  await expect(alice.getByTestId('revision-why-shown')).toHaveText(why);
  await expect(alice.getByTestId('revision-diff').locator('b')).toHaveCount(0);
  // The diff speaks in words, not "300 → 200".
  await expect(alice.getByTestId('diff-amountMinor')).toHaveText('amount: 3.00 → 2.00 USD');
  await expect(alice.getByTestId('proposal-summary')).toHaveText('Refund 2.00 USD on order ord_1842');
  const revisionUrl = alice.url();
  const revisionId = revisionUrl.split('/').pop()!;

  // History's events say why, on the revision's own event and on the replaced proposal's.
  for (const [id, type] of [
    [revisionId, 'proposal.created'],
    [original.id, 'proposal.revised'],
  ] as const) {
    await alice.goto(`/history?tab=events&q=${id}`);
    await expect(
      alice.locator(`[data-testid="history-event"][data-type="${type}"]`).getByTestId('history-event-text'),
    ).toContainText(`reason: ${why}`);
  }
  await alice.goto(revisionUrl);

  // The editor is an initiator of the revision: she is not offered approval (the server refuses it too), only rejection.
  await expect(alice.getByTestId('approve-barred')).toContainText('someone else must approve');
  await expect(alice.getByTestId('approve')).toHaveCount(0);
  await expect(alice.getByTestId('reject')).toBeVisible();

  // The original is cancelled and says why.
  await alice.goto(`/proposals/${original.id}`);
  await expect(alice.getByTestId('status-chip')).toHaveText('cancelled');

  // Bob edits Alice's revision: both of them edited the chain, so neither may approve its final revision.
  const bob = await browser.newPage({ baseURL });
  await bob.goto(revisionUrl);
  await signInWithForm(bob, 'bob@acme.test');
  await bob.getByTestId('edit-proposal').click();
  await bob.getByTestId('revision-amountMinor').fill('2.5');
  await bob.getByLabel('Reason for the change').fill('Shipping refunded too');
  await bob.getByTestId('revision-submit').click();
  await expect(bob).not.toHaveURL(revisionUrl);
  await expect(bob.getByTestId('proposal-summary')).toHaveText('Refund 2.50 USD on order ord_1842');
  await expect(bob.getByTestId('revision-why-shown')).toHaveText('Shipping refunded too');
  const finalUrl = bob.url();
  await expect(bob.getByTestId('approve-barred')).toBeVisible();
  await expect(bob.getByTestId('approve')).toHaveCount(0);
  await bob.close();

  await alice.goto(finalUrl);
  await expect(alice.getByTestId('approve-barred')).toBeVisible();
  await expect(alice.getByTestId('approve')).toHaveCount(0);
  await alice.close();

  const carol = await browser.newPage({ baseURL });
  await carol.goto(finalUrl);
  await signInWithForm(carol, 'carol@acme.test');
  await carol.getByTestId('approve').click();
  await carol.getByTestId('confirm-approve').click();
  await expect(carol.getByTestId('status-chip')).toHaveText(/^(approved|executing|succeeded)$/);
  // History's Decisions row of the approved revision says why it was edited.
  await carol.goto(`/history?q=${finalUrl.split('/').pop()!}`);
  await expect(carol.getByTestId('history-decision-revision-reason')).toHaveText(
    'Edited because: Shipping refunded too',
  );
  await carol.close();
});

test('the server refuses a revision that changes a locked field, naming it, whatever the form shows', async ({
  baseURL,
  request,
}) => {
  const args = { orderId: 'ord_1842', amountMinor: 100, currency: 'USD', reason: 'Damaged parcel' };
  const proposal = { ...(await proposeRefund(request, args)), args };
  const alice = await apiSession(baseURL!, 'alice@acme.test');
  try {
    for (const [change, field] of [
      [{ orderId: 'ord_1843' }, 'orderId'],
      [{ currency: 'EUR' }, 'currency'],
    ] as const) {
      const response = await alice.post(`/api/v1/proposals/${proposal.id}/revisions`, {
        headers: { origin: baseURL!, 'content-type': 'application/json' },
        data: { args: { ...proposal.args, amountMinor: 50, ...change }, reason: 'e2e: locked-field check' },
      });
      expect(response.status()).toBe(422);
      const { error } = (await response.json()) as {
        error: { code: string; message: string; issues: { field: string; code: string }[] };
      };
      expect(error).toMatchObject({ code: 'locked_field', issues: [{ field, code: 'locked' }] });
      expect(error.message).toContain(`${field} cannot be changed by an edit`);
    }
    const after = (await (await alice.get(`/api/v1/proposals/${proposal.id}`)).json()) as { status: string };
    expect(after.status).toBe('pending_approval');
    // Leave the demo as it was: the refund's claim on ord_1842 ends.
    const reject = await alice.post(`/api/v1/proposals/${proposal.id}/decisions`, {
      headers: { origin: baseURL!, 'content-type': 'application/json' },
      data: { decision: 'reject', payloadHash: proposal.payloadHash, reason: 'e2e: locked-field check' },
    });
    expect(reject.status()).toBeLessThan(300);
  } finally {
    await alice.dispose();
  }
});
