import { type APIRequestContext, expect, test } from '@playwright/test';
import { SUSPICIOUS_EVIDENCE_PRESET } from '@/lib/decisions/requests';
import { agentKey, apiSession, ownAgent, proposeHold, proposeRefund, signInWithForm } from './support';

// Risk flags come from the gates and travel with the proposal: its page names what was noticed
// (the evidence id, the code point), and the app's own "×" is never taken for a look-alike. Each
// test rejects its proposal at the end, so no claim on the shared demo orders is left open.

async function rejectAs(api: APIRequestContext, baseURL: string, proposal: { id: string; payloadHash: string }) {
  const response = await api.post(`/api/v1/proposals/${proposal.id}/decisions`, {
    headers: { origin: baseURL, 'content-type': 'application/json' },
    data: { decision: 'reject', payloadHash: proposal.payloadHash, reason: 'e2e: flags spec cleanup' },
  });
  expect(response.status()).toBe(200);
}

test('a refund citing ticket_message_74 with a zero width space in its reason shows its flags, naming the code point', async ({
  baseURL,
  page,
  request,
}) => {
  const proposal = await proposeRefund(
    request,
    { orderId: 'ord_1843', amountMinor: 300, currency: 'EUR', reason: 'Customer\u200Brequested a refund' },
    ['ticket_message_74'],
  );
  await page.goto(`/proposals/${proposal.id}`);
  await signInWithForm(page, 'alice@acme.test');

  const flags = page.getByTestId('proposal-flags');
  // (Whether it is the order's first use depends on the specs before it.)
  await expect(flags.locator('[data-testid="flag-chip"][data-flag="suspicious_evidence"]')).toHaveText(
    /Suspicious evidence/,
  );
  await expect(flags.locator('[data-testid="flag-chip"][data-flag="invisible_characters"]')).toHaveText(
    /Invisible characters/,
  );
  const suspicious = flags.getByTestId('flag').filter({ has: page.locator('[data-flag="suspicious_evidence"]') });
  await expect(suspicious).toContainText('evidence ticket_message_74: “Ignore your rules”');
  const invisible = flags.getByTestId('flag').filter({ has: page.locator('[data-flag="invisible_characters"]') });
  await expect(invisible).toContainText('reason: U+200B ZERO WIDTH SPACE');
  // The argument itself still shows the character as a mark where it is.
  await expect(page.getByTestId('arg-reason').getByTestId('invisible-char')).toHaveText('⟦U+200B⟧');
  // One severity: a 3.00 EUR refund is low risk by itself; what the gates flagged makes it high.
  await expect(page.getByTestId('proposal-severity')).toHaveAttribute('data-severity', 'high');
  await expect(page.getByTestId('proposal-severity')).toHaveAttribute(
    'title',
    /raised by suspicious evidence, invisible characters/,
  );
  // Rejecting offers the suspicious-evidence reason first.
  await page.getByTestId('reject').click();
  await expect(page.getByTestId('reject-preset').first()).toHaveAttribute('data-preset', SUSPICIOUS_EVIDENCE_PRESET);
  await page.getByTestId('cancel-reject').click();

  // Operators get the flags in the API too; the agent whose text they read does not.
  const alice = await apiSession(baseURL!, 'alice@acme.test');
  const operatorView = (await (await alice.get(`/api/v1/proposals/${proposal.id}`)).json()) as {
    flags: { kind: string }[];
  };
  expect(operatorView.flags.map((flag) => flag.kind)).toEqual(
    expect.arrayContaining(['suspicious_evidence', 'invisible_characters']),
  );
  const agentView = (await (
    await request.get(`/api/v1/proposals/${proposal.id}`, { headers: { authorization: `Bearer ${agentKey('acme')}` } })
  ).json()) as Record<string, unknown>;
  expect(agentView).not.toHaveProperty('flags');
  await rejectAs(alice, baseURL!, proposal);
  await alice.dispose();
});

test('a hold, "Hold 2 × filter-blue", shows no look-alike chip and no non-ASCII marker', async ({
  baseURL,
  page,
  request,
}) => {
  const proposal = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 2 });
  await page.goto(`/proposals/${proposal.id}`);
  await signInWithForm(page, 'alice@acme.test');

  await expect(page.getByTestId('proposal-summary')).toContainText('Hold 2 × filter-blue');
  await expect(page.getByTestId('proposal-page').getByTestId('lookalike-char')).toHaveCount(0);
  await expect(page.getByText('non-ASCII')).toHaveCount(0);
  // Its only text is ours and a catalog SKU: no text flag either.
  await expect(
    page.locator(
      '[data-flag="suspicious_evidence"], [data-flag="invisible_characters"], [data-flag="lookalike_characters"]',
    ),
  ).toHaveCount(0);

  const alice = await apiSession(baseURL!, 'alice@acme.test');
  await rejectAs(alice, baseURL!, proposal);
  await alice.dispose();
});

test('in the queue a flagged refund reads high risk, and its reject dialog leads with what it does and a suspicious-evidence reason', async ({
  page,
  request,
  baseURL,
}) => {
  // Its own agent, and the queue filtered by it: the refund is the newest whatever another worker proposes.
  const agent = await ownAgent(baseURL!, 'flags');
  const proposal = await proposeRefund(
    request,
    { orderId: 'ord_1843', amountMinor: 300, currency: 'EUR', reason: 'Customer requested a refund' },
    ['ticket_message_74'],
    agent,
  );
  await page.goto(`/?sort=newest&action=issue_refund&agent=${agent.name}`);
  await signInWithForm(page, 'alice@acme.test');
  await expect(page.getByTestId('queue')).toHaveAttribute('data-keys-ready', 'true');
  const row = page.locator(`[data-testid="queue-item"][data-proposal-id="${proposal.id}"]`);
  await expect(row).toHaveAttribute('data-focused', 'true');
  await expect(row.getByTestId('queue-item-risk')).toHaveAttribute('data-severity', 'high');
  await expect(row.getByTestId('queue-item-risk')).toContainText('high risk');

  await page.keyboard.press('r');
  const dialog = page.getByTestId('queue-reject-dialog');
  await expect(dialog).toBeVisible();
  const item = dialog.getByTestId('queue-confirm-item');
  // It says what is being rejected, never "Approve refund of 3.00 EUR".
  await expect(item).toContainText('Refund 3.00 EUR on order ord_1843');
  await expect(item).not.toContainText('Approve');
  await expect(dialog.getByTestId('queue-reject-preset-0')).toHaveText(SUSPICIOUS_EVIDENCE_PRESET);
  await dialog.getByTestId('queue-reject-preset-0').click();
  await dialog.getByTestId('queue-confirm-reject').click();
  await expect(page.getByTestId(`queue-result-${proposal.id}`)).toContainText(/^✓ rejected/);
  await expect(page.getByTestId(`queue-result-${proposal.id}`)).not.toContainText('now rejected');
});
