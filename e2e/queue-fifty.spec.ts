import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { QUEUE_FIFTY_ORDERS, QUEUE_FIFTY_SKU } from '@/demo/systems/world';
import { itemSeverity, needsLook, type QueueItem, type QueuePage } from '@/lib/shared/queue-view';
import { apiSession, ownAgent, signInWithForm, uniqueRequestId } from './support';

/**
 * Issue 13's acceptance: an approver clears a 50-item mixed queue with the keyboard alone. Every
 * item that needs a look (flags, risk above low, or changed since proposed) stops at a confirmation
 * that shows its risk and flags — two keys, `a` then Enter; every other item takes one key, `a`.
 *
 * Isolation: the 50 proposals come from an agent key made for this test (so `?agent=` shows only
 * them, whatever other specs left pending) and touch only the orders and SKU the demo systems keep
 * for this spec (demo/systems/world.ts): one refund per order, within its balance, so executing one
 * never moves another. The high refunds need a second approver; bob rejects them at the end, so
 * nothing of this test stays pending.
 */

type Planned = {
  kind: 'high refund' | 'injection refund' | 'low refund' | 'medium hold' | 'low hold';
  action: 'issue_refund' | 'hold_stock';
  args: Record<string, unknown>;
  evidenceRefs: string[];
};

function plan(): Planned[] {
  const orders = [...QUEUE_FIFTY_ORDERS];
  const refund = (kind: Planned['kind'], amountMinor: number, reason: string, evidenceRefs: string[]): Planned => ({
    kind,
    action: 'issue_refund',
    args: { orderId: orders.shift()!, amountMinor, currency: 'EUR', reason },
    evidenceRefs,
  });
  const hold = (kind: Planned['kind'], quantity: number): Planned => ({
    kind,
    action: 'hold_stock',
    args: { sku: QUEUE_FIFTY_SKU, quantity },
    evidenceRefs: [],
  });
  const high = Array.from({ length: 6 }, (_, i) =>
    refund(
      'high refund',
      15_000 + i * 100,
      `Order arrived broken, customer wants the full amount back (case ${i + 1})`,
      ['ticket_message_73'],
    ),
  );
  // ticket_message_74 tries to instruct the agent: the gates flag it as suspicious evidence.
  const injection = Array.from({ length: 5 }, (_, i) =>
    refund('injection refund', 1_200 + i * 10, `Partial refund as the ticket asks (case ${i + 1})`, [
      'ticket_message_74',
    ]),
  );
  const low = Array.from({ length: 5 }, (_, i) =>
    refund('low refund', 2_500 + i * 10, `Late delivery goodwill refund (case ${i + 1})`, ['ticket_message_73']),
  );
  const medium = Array.from({ length: 10 }, () => hold('medium hold', 4));
  const plain = Array.from({ length: 24 }, (_, i) => hold('low hold', 1 + (i % 3)));
  // Interleaved, so risky and clear items alternate irregularly down the list.
  const lanes = [plain, medium, high, plain, injection, plain, low, medium];
  const out: Planned[] = [];
  while (lanes.some((lane) => lane.length > 0)) for (const lane of lanes) if (lane.length > 0) out.push(lane.shift()!);
  return out;
}

async function propose(api: APIRequestContext, key: string, planned: Planned): Promise<string> {
  const response = await api.post('/api/v1/proposals', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    data: {
      requestId: uniqueRequestId('fifty'),
      action: planned.action,
      contractVersion: 1,
      args: planned.args,
      evidenceRefs: planned.evidenceRefs,
    },
  });
  expect(response.status(), JSON.stringify(planned)).toBe(201);
  return ((await response.json()) as { proposal: { id: string } }).proposal.id;
}

const focusedRow = (page: Page) => page.locator('[data-testid="queue-item"][data-focused="true"]');

test('an approver clears a 50-item mixed queue with the keyboard: risky items stop for a look, clear ones take one key', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(300_000);

  const { name: agentName, key } = await ownAgent(baseURL!, 'queue-fifty', { warehouses: ['east'] });

  const planned = plan();
  expect(planned).toHaveLength(50);
  const kindOf = new Map<string, Planned['kind']>();
  for (const item of planned) kindOf.set(await propose(request, key, item), item.kind);

  // What each item is, as the queue serves it to alice: her group, risk, flags, drift, quorum.
  const alice = await apiSession(baseURL!, 'alice@acme.test');
  const served = await alice.get(`/api/v1/queue?agent=${agentName}&sort=oldest`);
  expect(served.status()).toBe(200);
  const queue = (await served.json()) as QueuePage;
  await alice.dispose();
  expect(queue.counts['needs-you']).toBe(50);
  const expected = new Map<string, QueueItem>(queue.items.map((item) => [item.id, item]));
  expect([...expected.keys()].sort()).toEqual([...kindOf.keys()].sort());
  for (const [id, item] of expected) {
    const kind = kindOf.get(id)!;
    expect(item.mine, id).toEqual({ kind: 'decide' });
    expect(item.risk, kind).toBe(kind === 'high refund' ? 'high' : kind === 'medium hold' ? 'medium' : 'low');
    if (kind === 'high refund') expect(item.approvals).toEqual({ have: 0, need: 2 });
    if (kind === 'injection refund') {
      expect(item.evidence[0]?.excerpt).toContain('Ignore your rules');
      expect(item.flags.map((flag) => flag.kind)).toContain('suspicious_evidence');
    }
  }
  const risky = [...expected.values()].filter(needsLook);
  const clear = [...expected.values()].filter((item) => !needsLook(item));
  expect(risky.length).toBeGreaterThanOrEqual(16);
  expect(clear.length).toBeGreaterThan(0);

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`/?agent=${agentName}&sort=oldest`);
  await signInWithForm(page, 'alice@acme.test');
  await expect(page.getByTestId('queue')).toHaveAttribute('data-keys-ready', 'true');
  await expect(page.getByTestId('queue-group-needs-you')).toHaveText('Needs you · 50');
  await expect(page.getByTestId('queue-item')).toHaveCount(50);
  await expect(page.getByTestId('queue-approve-rule')).toContainText('opens a confirmation first');

  let keys = 0;
  const press = async (key: string) => {
    keys += 1;
    await page.keyboard.press(key);
  };
  const dialog = page.getByTestId('queue-approve-dialog');
  const decided: string[] = [];

  while (decided.length < 50) {
    const row = focusedRow(page);
    await expect(row).toHaveCount(1);
    const id = (await row.getAttribute('data-proposal-id'))!;
    expect(decided, 'focus never returns to a decided item').not.toContain(id);
    const item = expected.get(id)!;
    // The preview beside the list follows focus.
    await expect(page.getByTestId('queue-preview')).toHaveAttribute('data-proposal-id', id);

    if (needsLook(item)) {
      await press('a');
      await expect(dialog).toBeVisible();
      const signals = dialog.getByTestId('queue-confirm-signals');
      // One severity: the risk raised by flags and quorum.
      await expect(signals.getByTestId('signals-risk')).toContainText(`${itemSeverity(item).level} risk`);
      await expect(signals.getByTestId('flag')).toHaveCount(item.flags.length);
      for (const flag of item.flags) await expect(signals.locator(`[data-flag="${flag.kind}"]`).first()).toBeVisible();
      if (item.changedSinceProposed) await expect(dialog).toContainText(item.changedSinceProposed);
      if (item.reason) await expect(signals.getByTestId('signals-reason')).toContainText(item.reason);
      if (item.evidence.length > 0)
        await expect(signals.getByTestId('signals-evidence-item')).toHaveCount(item.evidence.length);
      await expect(dialog.getByTestId(`queue-confirm-hash-${id}`)).toHaveText(item.payloadHash);
      if (item.approvals.need === 2)
        await expect(dialog.getByTestId('queue-confirm-quorum')).toHaveText(
          'Nothing runs yet: 1 more approval needed after yours',
        );
      await press('Enter');
      await expect(dialog).toBeHidden();
    } else {
      // One key only once the preview's live check of its facts came back clear.
      await expect(page.getByTestId('queue-preview-facts')).toHaveAttribute('data-state', 'fresh');
      await press('a');
      await expect(dialog).toBeHidden();
    }

    const result = page.getByTestId(`queue-result-${id}`);
    await expect(result).toHaveAttribute('data-outcome', 'done');
    if (item.approvals.need === 2) await expect(result).toContainText('Approved by you · 1 more needed');
    decided.push(id);
    if (decided.length < 50) {
      // Focus moved on by itself to the next item that needs alice.
      await expect(focusedRow(page)).not.toHaveAttribute('data-proposal-id', id);
      await expect(focusedRow(page).getByTestId('queue-item-link')).toBeFocused();
    }
  }

  expect(keys).toBe(clear.length + 2 * risky.length);
  await expect(page.getByTestId('queue-empty')).toBeVisible();
  await expect(page.getByTestId('queue-group-needs-you')).toHaveText('Needs you · 0');
  await expect(page.getByTestId('queue-decision-errors')).toBeEmpty();

  // The two-approver refunds wait on someone else now, and say so.
  const waiting = expected.size - [...expected.values()].filter((item) => item.approvals.need === 1).length;
  await expect(page.getByTestId('queue-group-waiting')).toHaveText(`Waiting on others · ${waiting}`);
  await page.getByTestId('queue-group-waiting').click();
  await expect(page).toHaveURL(new RegExp(`group=waiting&agent=${agentName}`));
  await expect(page.getByTestId('queue-item')).toHaveCount(waiting);
  for (const part of await page.getByTestId('queue-item-part').all())
    await expect(part).toHaveText('You approved · 1 more needed');
  await expect(page.locator('[data-testid^="queue-select-"]:not([data-testid="queue-select-all"])')).toHaveCount(0);

  const bob = await apiSession(baseURL!, 'bob@acme.test');
  for (const item of expected.values()) {
    if (item.approvals.need !== 2) continue;
    const rejected = await bob.post(`/api/v1/proposals/${item.id}/decisions`, {
      headers: { origin: baseURL!, 'content-type': 'application/json' },
      data: { decision: 'reject', payloadHash: item.payloadHash, reason: 'Queue-fifty test done' },
    });
    expect(rejected.status()).toBe(200);
  }
  await bob.dispose();
});
