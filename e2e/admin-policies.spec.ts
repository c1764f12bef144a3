import path from 'node:path';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { PLAN_ORDERS } from '@/demo/systems/world';
import { violations } from './axe';
import { agentKey, apiSession, proposeHold, proposeRefund, signInWithForm, uniqueRequestId } from './support';

/**
 * Settings → Routing policies against the production server: carol (admin) edits hold_stock in the
 * form, previews a sample, saves and sees the diff and the new version; the next agent proposal is
 * routed by it. Approvers and viewers read the policy but cannot change it. Other spec files need
 * acme's routing as it was (hold_stock: one approver), so the original rules are published again
 * at the end.
 */

const API = '/api/v1/admin/policies';
const dir = process.env.SCREENSHOT_DIR ?? 'test-results/screenshots';

type Rule = { id: string; description: string; when: unknown; outcome: string; approvals: number; role: string };
type View = {
  action: string;
  version: number;
  rules: Rule[];
  expiryHours: number;
  createdAt: string | null;
  createdBy: { name: string; email: string } | null;
  note: string | null;
};

async function documentOf(api: APIRequestContext): Promise<View[]> {
  const response = await api.get(API);
  expect(response.status()).toBe(200);
  return ((await response.json()) as { policies: View[] }).policies;
}

const holdOf = (views: View[]) => views.find((view) => view.action === 'hold_stock')!;

/** Publishes `original`'s rules and expiry again when the newest version differs (a new version: history is immutable). */
async function restore(api: APIRequestContext, baseURL: string, original: View) {
  const now = holdOf(await documentOf(api));
  const response = await api.put(API, {
    headers: { origin: baseURL },
    data: {
      policies: [{ ...now, rules: original.rules, expiryHours: original.expiryHours }],
      note: 'Restore the rules the other specs expect',
    },
  });
  expect(response.status()).toBe(200);
  expect(holdOf(await documentOf(api)).rules).toEqual(original.rules);
}

async function routingOf(api: APIRequestContext, id: string) {
  const response = await api.get(`/api/v1/proposals/${id}`, {
    headers: { authorization: `Bearer ${agentKey('acme')}` },
  });
  expect(response.status()).toBe(200);
  return (
    (await response.json()) as { routing: { rule: string; policyVersion: number; approvals: number; outcome: string } }
  ).routing;
}

async function shoot(page: Page, name: string) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.screenshot({ path: path.join(dir, `${name}-${scheme}.png`), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow, `${name} fits 390 px (${scheme})`).toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(dir, `${name}-phone-${scheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });
}

test('an admin edits hold_stock in the form, previews, saves a new version that routes the next proposal', async ({
  page,
  baseURL,
  request,
}) => {
  const carol = await apiSession(baseURL!, 'carol@acme.test');
  const original = holdOf(await documentOf(carol));
  const pending = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 2 });
  try {
    await page.goto('/settings/policies');
    await signInWithForm(page, 'carol@acme.test');
    await expect(page).toHaveURL(/\/settings\/policies$/);
    const card = page.getByTestId('policy-hold_stock');
    await expect(card.getByTestId('policy-version')).toHaveAttribute('data-version', String(original.version));
    await expect(card.getByTestId('policy-rule')).toHaveCount(original.rules.length);

    // A deny above 3, added last and moved first; the catch-all now needs two approvers.
    await card.getByTestId('policy-add-rule').click();
    const added = card.getByTestId('policy-rule').last();
    await added.getByTestId('rule-condition').selectOption('above');
    await added.getByTestId('rule-field').selectOption('quantity');
    await added.getByTestId('rule-bound').fill('3');
    await added.getByTestId('rule-outcome').selectOption('deny');
    await added.getByTestId('rule-id').fill('no-holds-above-3');
    await added.getByTestId('rule-description').fill('Holds above 3 units are denied');
    await added.getByTestId('rule-up').click();
    await expect(card.getByTestId('policy-rule').first()).toHaveAttribute('data-rule-id', 'no-holds-above-3');
    await card.getByTestId('policy-rule').nth(1).getByTestId('rule-approvals').fill('2');

    // An invalid entry comes back inline, on its rule's field, and nothing is saved.
    await card.getByTestId('policy-expiry').fill('0');
    await card.getByTestId('policy-plan-run').click();
    await expect(card.getByTestId('expiry-error')).toContainText('expiryHours');
    await expect(card.getByTestId('policy-save')).toHaveCount(0);
    await card.getByTestId('policy-expiry').fill(String(original.expiryHours));

    // What would happen: a sample of 4 is denied by the new first rule, 2 needs two approvers.
    await card.getByTestId('preview-args').fill(JSON.stringify({ sku: 'filter-blue', quantity: 4 }));
    await card.getByTestId('preview-run').click();
    await expect(card.getByTestId('preview-result')).toHaveAttribute('data-outcome', 'deny');
    await expect(card.getByTestId('preview-result')).toContainText('Rule 1 (no-holds-above-3) matches → deny');
    await card.getByTestId('preview-args').fill(JSON.stringify({ sku: 'filter-blue', quantity: 2 }));
    await card.getByTestId('preview-run').click();
    await expect(card.getByTestId('preview-result')).toContainText('needs 2 distinct approvers');
    await expect(card.getByTestId('preview-result')).toContainText(`As v${original.version + 1}`);
    await shoot(page, 'settings-policies');
    await card.getByTestId('policy-preview').screenshot({ path: path.join(dir, 'settings-policies-preview.png') });

    // The plan: the change in words, then the note; publishing without one is refused on the note.
    await card.getByTestId('policy-plan-run').click();
    await expect(card.getByTestId('plan-changes')).toContainText(
      'Adds rule no-holds-above-3: When quantity is above 3 → deny',
    );
    await expect(card.getByTestId('plan-changes')).toContainText('needs 2 distinct approvers');
    await expect(card.getByTestId('plan-backtest')).toContainText('of the last 30 days replayed');
    await card.getByTestId('policy-save').click();
    await expect(card.getByTestId('note-error')).toContainText('"note"');
    await expect(card.getByTestId('policy-version')).toHaveAttribute('data-version', String(original.version));
    await card.getByTestId('policy-note').fill('Big holds emptied the north shelf');
    await card.getByTestId('policy-save').click();
    const saved = card.getByTestId('policy-saved');
    await expect(saved).toHaveAttribute('data-version', String(original.version + 1));
    await expect(saved).toContainText(`Saved as v${original.version + 1} (was v${original.version})`);
    await expect(saved.locator('[data-kind="added"]')).toContainText('When quantity is above 3 → deny');
    await expect(saved.locator('[data-kind="changed"]')).toContainText('needs 2 distinct approvers');
    await expect(card.getByTestId('policy-version')).toHaveAttribute('data-version', String(original.version + 1));
    await expect(card.getByTestId('policy-version')).toContainText('Carol');
    await expect(card.getByTestId('policy-version-note')).toHaveText('Why: “Big holds emptied the north shelf”');
    expect(holdOf(await documentOf(carol)).note).toBe('Big holds emptied the north shelf');
    await shoot(page, 'settings-policies-saved');
    await saved.screenshot({ path: path.join(dir, 'settings-policies-diff.png') });

    // New proposals are routed by the new version; the one pending before keeps its routing.
    const after = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 2 });
    expect(await routingOf(request, after.id)).toMatchObject({
      rule: original.rules[0]!.id,
      policyVersion: original.version + 1,
      approvals: 2,
    });
    expect(await routingOf(request, pending.id)).toMatchObject({ policyVersion: original.version, approvals: 1 });
    const denied = await request.post('/api/v1/proposals', {
      headers: { authorization: `Bearer ${agentKey('acme')}`, 'content-type': 'application/json' },
      data: {
        requestId: uniqueRequestId('hold-denied'),
        action: 'hold_stock',
        contractVersion: 1,
        args: { sku: 'filter-blue', quantity: 4 },
        evidenceRefs: [],
      },
    });
    expect(denied.status()).toBe(403);
    expect(((await denied.json()) as { error: { code: string } }).error.code).toBe('denied_by_policy');

    // Another admin's save in between makes this page's draft stale: 409, and nothing is saved.
    await restore(carol, baseURL!, original);
    await card.getByTestId('rule-description').first().fill('Edited on an old version');
    await card.getByTestId('policy-plan-run').click();
    await expect(card.getByTestId('policy-error')).toContainText('is at v');
    await card.getByTestId('policy-reload').click();
    await expect(card.getByTestId('policy-rule')).toHaveCount(original.rules.length);
  } finally {
    await restore(carol, baseURL!, original);
    await carol.dispose();
  }
});

test('approvers and viewers read the policy with its version and author, and PUT is 403 for them', async ({
  page,
  baseURL,
}) => {
  for (const email of ['alice@acme.test', 'dave@acme.test']) {
    const api = await apiSession(baseURL!, email);
    const views = await documentOf(api);
    // The shipped actions, beside whatever actions other specs declared in acme (each has a policy too).
    expect(views.map((view) => view.action)).toEqual(expect.arrayContaining(['hold_stock', 'issue_refund']));
    const put = await api.put(API, {
      headers: { origin: baseURL! },
      data: { policies: [holdOf(views)], note: 'Not mine to change' },
    });
    expect(put.status(), `${email} may not save`).toBe(403);
    const plan = await api.post(`${API}/plan`, { headers: { origin: baseURL! }, data: { policies: [holdOf(views)] } });
    expect(plan.status(), `${email} may not plan`).toBe(403);
    const preview = await api.post(`${API}/preview`, {
      headers: { origin: baseURL! },
      data: {
        action: 'hold_stock',
        rules: holdOf(views).rules,
        expiryHours: 24,
        sample: { args: { sku: 'filter-blue', quantity: 1 } },
      },
    });
    expect(preview.status()).toBe(403);
    await api.dispose();
  }
  // An agent key reads nothing here.
  const keyed = await page.request.get(API, { headers: { authorization: `Bearer ${agentKey('acme')}` } });
  expect(keyed.status()).toBe(401);

  await page.goto('/settings/policies');
  await signInWithForm(page, 'dave@acme.test');
  await expect(page.getByTestId('policies-read-only')).toContainText('a viewer');
  const card = page.getByTestId('policy-hold_stock');
  await expect(card.getByTestId('policy-rule-words').first()).toBeVisible();
  await expect(card.getByTestId('policy-version')).toContainText(/v\d+ · published by/);
  await expect(page.getByTestId('policy-editor')).toHaveCount(0);
  await shoot(page, 'settings-policies-viewer');
});

type Flip = {
  proposalId: string;
  summary: string;
  before: { outcome: string; approvals: number };
  after: { outcome: string; approvals: number };
};

test('a draft lowering the refund bound lists exactly the proposals that flip, and the plan shows them before publishing', async ({
  page,
  baseURL,
  request,
}) => {
  const carol = await apiSession(baseURL!, 'carol@acme.test');
  const alice = await apiSession(baseURL!, 'alice@acme.test');
  // acme's refunds above 100.00 per order in 24 h need two approvers; the draft lowers that to 50.00.
  const amounts = [3000, 6000, 9000, 12000];
  const proposals = [];
  for (const [index, amountMinor] of amounts.entries()) {
    proposals.push(
      await proposeRefund(request, {
        orderId: PLAN_ORDERS[index],
        amountMinor,
        currency: 'EUR',
        reason: 'Backtest sample',
      }),
    );
  }
  const [small, middle, upper, big] = proposals;
  try {
    const refund = (await documentOf(carol)).find((view) => view.action === 'issue_refund')!;
    const [bound, rest] = refund.rules as [Rule & { when: Record<string, unknown> }, Rule];
    const draft = { ...refund, rules: [{ ...bound, when: { ...bound.when, above: 5000 } }, rest] };
    const answer = await carol.post(`${API}/plan`, { headers: { origin: baseURL! }, data: { policies: [draft] } });
    expect(answer.status()).toBe(200);
    const plan = (await answer.json()) as {
      changes: { action: string; words: string[] }[];
      warnings: { action: string; ruleId: string; message: string }[];
      backtest: { days: number; proposals: number; flips: Flip[] };
    };
    expect(plan.changes.map((change) => change.action)).toEqual(['issue_refund']);
    // Both descriptions and both ids still name 100.00: warnings, the catch-all's included; ids are not renamed.
    expect(plan.warnings.map((warning) => warning.ruleId)).toEqual([
      'refunds-over-100',
      'refunds-over-100',
      'refunds-up-to-100',
      'refunds-up-to-100',
    ]);
    expect(plan.warnings[2]!.message).toMatch(
      /^Rule refunds-up-to-100: The description says 100\.00, but the rules before it are bounded at /,
    );
    expect(plan.warnings[3]!.message).toContain('Ids are not renamed, since past proposals cite them');
    const mine = new Set(proposals.map((proposal) => proposal.id));
    const flipped = plan.backtest.flips.filter((flip) => mine.has(flip.proposalId));
    expect(flipped.map((flip) => flip.proposalId).sort()).toEqual([middle!.id, upper!.id].sort());
    for (const flip of flipped)
      expect(flip).toMatchObject({
        before: { outcome: 'needs_approval', approvals: 1 },
        after: { outcome: 'needs_approval', approvals: 2 },
      });
    expect(flipped.map((flip) => flip.summary).sort()).toEqual([
      `issue_refund on ${PLAN_ORDERS[1]}`,
      `issue_refund on ${PLAN_ORDERS[2]}`,
    ]);
    expect(plan.backtest.days).toBe(30);
    expect(plan.backtest.proposals).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(plan)).not.toContain('Backtest sample');
    expect(
      (await carol.post(`${API}/plan?days=0`, { headers: { origin: baseURL! }, data: { policies: [draft] } })).status(),
    ).toBe(422);
    // The plan wrote nothing.
    expect((await documentOf(carol)).find((view) => view.action === 'issue_refund')!.version).toBe(refund.version);

    // The same in the dashboard: counts and a link to each flipping proposal, before any publishing.
    await page.goto('/settings/policies');
    await signInWithForm(page, 'carol@acme.test');
    const card = page.getByTestId('policy-issue_refund');
    // Money bounds in major units beside the currency, parsed as the revision form parses money.
    await card.getByTestId('policy-currency').selectOption('EUR');
    const first = card.getByTestId('policy-rule').first();
    await expect(first.getByTestId('rule-bound')).toHaveValue('100.00');
    await expect(first.getByTestId('rule-bound-currency')).toHaveText('EUR');
    await first.getByTestId('rule-bound').fill('50.001');
    await expect(first.getByTestId('rule-bound-error')).toContainText('EUR has 2 decimals');
    await first.getByTestId('rule-bound').fill('50.00');
    await expect(first.getByTestId('rule-bound-minor')).toHaveText('= 5000 minor units, compared in every currency');
    // The description still says 100.00: flagged, and rewritten from the rule's terms.
    await expect(first.getByTestId('rule-description-mismatch')).toContainText(
      'The description says 100.00, but the bound is 50.00 EUR.',
    );
    expect(await violations(page), 'the flagged rule').toEqual([]);
    await first.getByTestId('rule-describe').click();
    await expect(first.getByTestId('rule-description')).toHaveValue(
      'amountMinor summed per resource over 24 h above 50.00 EUR: needs 2 distinct approvers',
    );
    await expect(first.getByTestId('rule-description-mismatch')).toHaveCount(0);
    await expect(first.getByTestId('rule-id-mismatch')).toContainText(
      'The id refunds-over-100 names 100, but the bound is 50.00 EUR.',
    );
    // The catch-all describes what the bound leaves: flagged too, and rewritten from the terms.
    const catchAll = card.getByTestId('policy-rule').nth(1);
    await expect(catchAll.getByTestId('rule-description-mismatch')).toContainText(
      'The description says 100.00, but the rules before it are bounded at 50.00 EUR.',
    );
    await catchAll.getByTestId('rule-describe').click();
    await expect(catchAll.getByTestId('rule-description')).toHaveValue(
      'Every other proposal (amountMinor summed per resource over 24 h up to 50.00 EUR): needs 1 distinct approver',
    );
    await expect(catchAll.getByTestId('rule-description-mismatch')).toHaveCount(0);
    await card.getByTestId('policy-plan-run').click();
    await expect(card.getByTestId('plan-changes')).toContainText(
      'is above 50.00 EUR → needs 2 distinct approvers (was above 100.00 EUR).',
    );
    for (const proposal of [middle!, upper!])
      await expect(card.locator(`[data-testid="plan-flip"][data-proposal-id="${proposal.id}"]`)).toBeVisible();
    for (const proposal of [small!, big!])
      await expect(card.locator(`[data-testid="plan-flip"][data-proposal-id="${proposal.id}"]`)).toHaveCount(0);
    await expect(card.getByTestId('plan-counts')).toContainText(
      'needs 1 distinct approver → needs 2 distinct approvers',
    );
    await expect(card.getByTestId('policy-note')).toBeVisible();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await violations(page), `the plan (${scheme})`).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await card.getByTestId('policy-plan').screenshot({ path: path.join(dir, 'settings-policies-plan.png') });
    await shoot(page, 'settings-policies-plan');
    await card.locator(`[data-testid="plan-flip"][data-proposal-id="${middle!.id}"] a`).click();
    await expect(page).toHaveURL(new RegExp(`/proposals/${middle!.id}$`));
  } finally {
    // Rejected, so no other spec's queue sees them.
    for (const proposal of proposals) {
      const rejected = await alice.post(`/api/v1/proposals/${proposal.id}/decisions`, {
        headers: { origin: baseURL! },
        data: { decision: 'reject', payloadHash: proposal.payloadHash, reason: 'Needs more evidence' },
      });
      expect(rejected.status()).toBe(200);
    }
    await alice.dispose();
    await carol.dispose();
  }
});
