import { expect, test } from '@playwright/test';
import { proposeRefund, signInWithForm } from './support';

test('approvers edit a proposal: re-gated revisions with a diff, which someone outside the chain must approve', async ({ browser, request, baseURL }) => {
  // ord_1842 (charged 49.99 USD) can never reach the two-approver bound, whatever other specs refunded on it today.
  const original = await proposeRefund(request, { orderId: 'ord_1842', amountMinor: 300, currency: 'USD', reason: 'Damaged parcel' });

  const alice = await browser.newPage({ baseURL });
  await alice.goto(`/proposals/${original.id}`);
  await signInWithForm(alice, 'alice@acme.test');
  await alice.getByTestId('edit-proposal').click();
  await expect(alice).toHaveURL(new RegExp(`/proposals/${original.id}/edit$`));

  // A value the contract refuses comes back as a field error; nothing is created.
  await alice.getByTestId('revision-amountMinor').fill('12.5');
  await alice.getByTestId('revision-submit').click();
  await expect(alice.getByTestId('revision-issue-amountMinor')).toContainText('integer');

  await alice.getByTestId('revision-amountMinor').fill('200');
  await alice.getByTestId('revision-submit').click();
  await expect(alice).not.toHaveURL(new RegExp(`/proposals/${original.id}`));
  await expect(alice.getByTestId('revision-diff')).toContainText(`Revision of ${original.id}`);
  await expect(alice.getByTestId('diff-amountMinor')).toContainText('300');
  await expect(alice.getByTestId('diff-amountMinor')).toContainText('200');
  await expect(alice.getByTestId('proposal-summary')).toHaveText('Refund 2.00 USD on order ord_1842');
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
  await bob.getByTestId('revision-amountMinor').fill('250');
  await bob.getByTestId('revision-submit').click();
  await expect(bob).not.toHaveURL(revisionUrl);
  await expect(bob.getByTestId('proposal-summary')).toHaveText('Refund 2.50 USD on order ord_1842');
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
