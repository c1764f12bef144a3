import fs from 'node:fs';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { cli } from './cli-runner';
import { apiSession, proposeHold, proposeRefund, signInWithForm } from './support';

const shots = process.env.SCREENSHOT_DIR ?? 'test-results/screenshots';

async function noSidewaysScroll(page: Page) {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
}

async function download(page: Page, testId: string): Promise<{ name: string; text: string }> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  const target = path.join(test.info().outputDir, file.suggestedFilename());
  await file.saveAs(target);
  return { name: file.suggestedFilename(), text: fs.readFileSync(target, 'utf8') };
}

test('carol filters the decisions by action and person, exports the filtered events, and reads an event’s hashes', async ({
  page,
  request,
  baseURL,
}) => {
  const hold = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
  const refund = await proposeRefund(request, {
    orderId: 'ord_1842',
    amountMinor: 100,
    currency: 'USD',
    reason: 'History e2e refund',
  });
  const alice = await apiSession(baseURL!, 'alice@acme.test');
  const bob = await apiSession(baseURL!, 'bob@acme.test');
  expect(
    (
      await alice.post(`/api/v1/proposals/${hold.id}/decisions`, {
        headers: { origin: baseURL! },
        data: { decision: 'approve', payloadHash: hold.payloadHash },
      })
    ).status(),
  ).toBe(200);
  expect(
    (
      await bob.post(`/api/v1/proposals/${refund.id}/decisions`, {
        headers: { origin: baseURL! },
        data: { decision: 'reject', payloadHash: refund.payloadHash, reason: 'Not needed after all' },
      })
    ).status(),
  ).toBe(200);
  const aliceId = ((await (await alice.get('/api/auth/session')).json()) as { operatorId: string }).operatorId;

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/history');
  await signInWithForm(page, 'carol@acme.test');
  await expect(page.getByTestId('history-decisions')).toBeVisible();
  await expect(page.getByTestId('chain-status')).toBeVisible();
  await expect(page.getByTestId('checkpoint-download')).toHaveAttribute('href', '/api/v1/audit/checkpoint');
  const rejected = page.locator(`[data-testid="history-decision"][data-proposal-id="${refund.id}"]`);
  await expect(rejected.getByTestId('history-decision-outcome')).toHaveText('Rejected by Bob');
  await expect(rejected.getByTestId('history-decision-reason')).toHaveText('Not needed after all');
  await expect(rejected).toContainText('Refund 1.00 USD on order ord_1842');
  // The agent as the timeline says it, its key id on hover.
  await expect(rejected.getByTestId('history-decision-agent')).toHaveText('agent acme-support-bot');
  await expect(rejected.getByTestId('history-decision-agent')).toHaveAttribute('title', /^\S+$/);

  // Filter through the form: the URL carries the filters.
  await page.getByTestId('history-filter-action').selectOption('hold_stock');
  await page.getByTestId('history-filter-person').selectOption({ label: 'Alice' });
  await page.getByTestId('history-filter-apply').click();
  await expect(page).toHaveURL(/action=hold_stock/);
  expect(new URL(page.url()).searchParams.get('person')).toBe(aliceId);
  const rows = page.getByTestId('history-decision');
  await expect(rows.first()).toBeVisible();
  for (const action of await rows.evaluateAll((els) => els.map((el) => el.getAttribute('data-action'))))
    expect(action).toBe('hold_stock');
  const approved = page.locator(`[data-testid="history-decision"][data-proposal-id="${hold.id}"]`);
  await expect(approved.getByTestId('history-decision-outcome')).toHaveText('Approved by Alice');
  await expect(approved.getByTestId('history-decision-hash')).toHaveAttribute('title', hold.payloadHash);
  await expect(page.locator(`[data-testid="history-decision"][data-proposal-id="${refund.id}"]`)).toHaveCount(0);

  // The exports hold the events behind the decisions shown: every event of the hold_stock proposals alice decided.
  await expect(page.getByTestId('history-export-csv')).toHaveAttribute(
    'href',
    new RegExp(`tab=decisions.*action=hold_stock.*format=csv`),
  );
  const csv = await download(page, 'history-export-csv');
  expect(csv.name).toMatch(/^countersign-audit-acme-\d{4}-\d{2}-\d{2}\.csv$/);
  // A UTF-8 byte order mark first, so a spreadsheet reads non-ASCII names as UTF-8.
  expect(csv.text.startsWith('\uFEFF')).toBe(true);
  const [header, ...lines] = csv.text.slice(1).trimEnd().split('\r\n');
  expect(header).toBe(
    'tenantId,seq,type,actorType,actorId,actorName,proposalId,payloadHash,reasonCode,contractVersion,data,occurredAt,prevHash,hash,actorLabel',
  );
  expect(lines.length).toBeGreaterThan(0);
  // A grant made from one of them (e2e/grants.spec.ts) is among its events too.
  for (const line of lines)
    expect(line).toMatch(/^acme,\d+,(proposal|command|execution|grant)\.\w+,(user|agent|system),/);
  expect(csv.text).toContain(`,proposal.approved,user,${aliceId},Alice,${hold.id},`);
  expect(csv.text).not.toContain(refund.id);
  const jsonl = await download(page, 'history-export-jsonl');
  const [end, ...reversed] = jsonl.text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .reverse();
  const records = reversed.reverse();
  // JSON Lines ends with the checkpoint signed note made when it began (docs/evidence.md); this view is a filtered export, each row with its inclusion proof.
  expect(end).toMatchObject({
    format: 'countersign.export-end/2',
    filtered: true,
    rows: records.length,
    tenant: 'acme',
    seq: records.at(-1)!.seq,
    hash: records.at(-1)!.hash,
    treeSize: expect.any(Number),
    note: expect.stringContaining('/countersign/acme\n'),
  });
  expect(records.length).toBe(lines.length);
  for (const record of records) {
    expect(record).toMatchObject({
      tenantId: 'acme',
      proposalId: expect.stringMatching(/^prp_/),
      inclusion: { seq: record.seq, treeSize: end!.treeSize },
    });
    expect(Object.keys(record)).toEqual([
      'tenantId',
      'seq',
      'type',
      'actorType',
      'actorId',
      'actorName',
      'proposalId',
      'payloadHash',
      'reasonCode',
      'contractVersion',
      'data',
      'occurredAt',
      'prevHash',
      'hash',
      'actorLabel',
      'inclusion',
    ]);
  }
  // Offered "to re-verify offline": audit:verify says exactly what it proves, and exits 0.
  const verified = await cli(path.join(test.info().outputDir, 'no-database'), [
    'audit:verify',
    '--export',
    path.join(test.info().outputDir, jsonl.name),
  ]);
  expect(verified.code, verified.stdout + verified.stderr).toBe(0);
  expect(verified.stdout).toContain('acme: a filtered export: it proves the events it holds, not the whole log');
  expect(verified.stdout).toContain(
    `each re-hashing and included in checkpoint #${end!.treeSize} (tree size ${end!.treeSize})`,
  );
  expect(verified.stdout).not.toContain('BROKEN');
  expect(
    records.some(
      (record) =>
        record.proposalId === hold.id &&
        record.type === 'proposal.approved' &&
        record.actorName === 'Alice' &&
        record.actorLabel === 'Alice',
    ),
  ).toBe(true);
  expect(
    records.some(
      (record) =>
        record.proposalId === hold.id &&
        record.type === 'proposal.created' &&
        record.actorLabel === 'agent acme-support-bot',
    ),
  ).toBe(true);
  expect(records.some((record) => record.proposalId === hold.id && record.type === 'proposal.created')).toBe(true);

  // A bad filter in the URL is a message, not an error page; the API answers 400.
  await page.goto('/history?outcome=won');
  await expect(page.getByTestId('history-filter-error')).toContainText('outcome must be one of');
  await page.goto('/history?from=2030-02-01&to=2030-01-01&tz=UTC');
  await expect(page.getByTestId('history-filter-error')).toContainText('from (2030-02-01) is after to (2030-01-01)');
  const bad = await page.request.get('/api/v1/audit/events?format=xlsx');
  expect(bad.status()).toBe(400);
  expect(await bad.json()).toMatchObject({ error: { code: 'invalid_query' } });

  // The Events view: names, words, and the hashed fields of one event.
  await page.goto(`/history?tab=events&q=${hold.id}`);
  const created = page.locator('[data-testid="history-event"][data-type="proposal.created"]');
  await expect(created.getByTestId('history-event-actor')).toHaveText('agent acme-support-bot');
  await expect(created.getByTestId('history-event-title')).toHaveText('Proposed');
  await created.getByTestId('history-event-details').locator('summary').click();
  await expect(created.getByTestId('history-event-field-hash')).toContainText(/sha256:[0-9a-f]{64}/);
  await expect(created.getByTestId('history-event-field-prevHash')).toContainText('sha256:');
  await expect(created.getByTestId('history-event-field-payloadHash')).toContainText(hold.payloadHash);
  await expect(created.getByTestId('history-event-field-tenantId')).toContainText('acme');

  for (const tab of ['decisions', 'events'] as const) {
    await page.goto(tab === 'events' ? '/history?tab=events' : '/history');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.screenshot({ path: path.join(shots, `history-${tab}-${scheme}.png`), fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await expect(page.getByTestId(`history-${tab}`)).toBeVisible();
      await noSidewaysScroll(page);
      await page.screenshot({ path: path.join(shots, `history-${tab}-phone-${scheme}.png`), fullPage: true });
    }
  }
});

test('erin (globex) never sees acme rows, in either view or the export', async ({ page, request }) => {
  const acme = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
  await page.goto('/history');
  await signInWithForm(page, 'erin@globex.test');
  await expect(page.getByTestId('history-page')).toBeVisible();
  await expect(page.locator(`[data-proposal-id="${acme.id}"]`)).toHaveCount(0);
  await page.goto('/history?tab=events');
  for (const tenant of await page.getByTestId('history-event-field-tenantId').locator('dd').allTextContents())
    expect(tenant).toBe('globex');
  await page.goto(`/history?tab=events&q=${acme.id}`);
  await expect(page.getByTestId('history-empty')).toBeVisible();
  const exported = await page.request.get('/api/v1/audit/events?format=jsonl');
  expect(exported.headers()['content-disposition']).toMatch(/^attachment; filename="countersign-audit-globex-/);
  for (const line of (await exported.text()).trimEnd().split('\n').filter(Boolean))
    expect(JSON.parse(line)).toMatchObject(
      line.includes('"format":"countersign.export-end/2"')
        ? { tenant: 'globex', filtered: false }
        : { tenantId: 'globex' },
    );
  // An agent key never opens the export.
  const withKey = await request.get('/api/v1/audit/events?format=csv', {
    headers: { authorization: 'Bearer cs_whatever' },
  });
  expect(withKey.status()).toBe(401);
});

test.describe('dates in the viewer’s locale', () => {
  test.use({ locale: 'en-GB', timezoneId: 'Europe/London' });

  test('History’s date fields read and show dd/mm/yyyy for an en-GB viewer; the URL keeps ISO; a day that does not exist is refused', async ({
    page,
  }) => {
    await page.goto('/history');
    await signInWithForm(page, 'carol@acme.test');
    const from = page.getByTestId('history-filter-from');
    await expect(from).toHaveAttribute('data-pattern', 'dd/mm/yyyy');
    await expect(from).toHaveAttribute('placeholder', 'dd/mm/yyyy');

    await from.fill('31/02/2030');
    await page.getByTestId('history-filter-apply').click();
    await expect(page.getByTestId('history-filter-date-error')).toHaveText(
      'From must be a date written dd/mm/yyyy (or 2030-01-31); got "31/02/2030".',
    );
    await expect(page).toHaveURL(/\/history$/);

    await from.fill('02/01/2030');
    await page.getByTestId('history-filter-apply').click();
    await expect(page).toHaveURL(/[?&]from=2030-01-02(&|$)/);
    await expect(page).toHaveURL(/[?&]tz=Europe%2FLondon(&|$)/);
    await expect(page.getByTestId('history-filter-from')).toHaveValue('02/01/2030');
  });
});
