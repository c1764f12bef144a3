import { expect, test } from '@playwright/test';
import { proposeRefund, signInWithForm } from './support';

test('approvers edit a proposal: re-gated revisions with a diff, which someone outside the chain must approve', async ({ browser, request, baseURL }) => {
  const original = await proposeRefund(request, { orderId: 'ord_1843', amountMinor: 1500, currency: 'EUR', reason: 'Damaged parcel' });

  const alice = await browser.newPage({ baseURL });
  await alice.goto(`/proposals/${original.id}`);
  await signInWithForm(alice, 'alice@acme.test');
  await alice.getByTestId('edit-proposal').click();
  await expect(alice).toHaveURL(new RegExp(`/proposals/${original.id}/edit$`));

  // A value the contract refuses comes back as a field error; nothing is created.
  await alice.getByTestId('revision-amountMinor').fill('12.5');
  await alice.getByTestId('revision-submit').click();
  await expect(alice.getByTestId('revision-issue-amountMinor')).toContainText('integer');

  await alice.getByTestId('revision-amountMinor').fill('1200');
  await alice.getByTestId('revision-submit').click();
  await expect(alice).not.toHaveURL(new RegExp(`/proposals/${original.id}`));
  await expect(alice.getByTestId('revision-diff')).toContainText(`Revision of ${original.id}`);
  await expect(alice.getByTestId('diff-amountMinor')).toContainText('1500');
  await expect(alice.getByTestId('diff-amountMinor')).toContainText('1200');
  await expect(alice.getByTestId('proposal-summary')).toHaveText('Refund 12.00 EUR on order ord_1843');
  const revisionUrl = alice.url();

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
  await bob.getByTestId('revision-amountMinor').fill('1100');
  await bob.getByTestId('revision-submit').click();
  await expect(bob).not.toHaveURL(revisionUrl);
  await expect(bob.getByTestId('proposal-summary')).toHaveText('Refund 11.00 EUR on order ord_1843');
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
  await carol.close();
});
