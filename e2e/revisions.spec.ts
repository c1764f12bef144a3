import { expect, test } from '@playwright/test';
import { proposeRefund, signInWithForm } from './support';

test('an approver edits a proposal: a re-gated revision with a diff, which someone else must approve', async ({ browser, request, baseURL }) => {
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

  // The editor is an initiator of the revision: her approval is refused by the server.
  await alice.getByTestId('approve').click();
  await alice.getByTestId('confirm-approve').click();
  await expect(alice.getByTestId('decision-error')).toContainText('someone else must approve');

  // The original is cancelled and says why.
  await alice.goto(`/proposals/${original.id}`);
  await expect(alice.getByTestId('status-chip')).toHaveText('cancelled');
  await alice.close();

  const bob = await browser.newPage({ baseURL });
  await bob.goto(revisionUrl);
  await signInWithForm(bob, 'bob@acme.test');
  await bob.getByTestId('approve').click();
  await bob.getByTestId('confirm-approve').click();
  await expect(bob.getByTestId('status-chip')).toHaveText(/^(approved|executing|succeeded)$/);
  await bob.close();
});
