import http from 'node:http';
import path from 'node:path';
import { type APIRequestContext, expect, test } from '@playwright/test';
import { type EvidenceRequest, evidenceResolverHandler, nodeHandler } from '../lib/agent-client';
import { violations } from './axe';
import { agentKey, eachLook, signInWithForm, uniqueRequestId } from './support';

/**
 * A tenant's evidence resolver (docs/executors.md) against the production server: carol (admin)
 * points acme's evidence at the team's service from the Contracts page, an agent cites one of its
 * tickets, and the proposal shows it. Exclusive (playwright.config.ts): while it is set, acme's
 * cited refs are read there, never from the systems of record; the test clears it again.
 */

const RESOLVER = 'http://127.0.0.1:4795/evidence';
const TICKET = { tenant: 'acme', id: 'tkt_e2e_1', kind: 'team_ticket', text: 'The customer asked us to hold one.' };
const dir = process.env.SCREENSHOT_DIR ?? 'test-results/screenshots';

const asked: EvidenceRequest[] = [];
const server = http.createServer();

test.beforeAll(async ({ baseURL }) => {
  const handler = evidenceResolverHandler({
    jwks: `${baseURL}/.well-known/jwks.json`,
    issuer: baseURL!,
    url: RESOLVER,
    find: (request) => {
      asked.push(request);
      return request.ref === TICKET.id && request.tenant === TICKET.tenant ? TICKET : undefined;
    },
  });
  server.on('request', nodeHandler(handler));
  await new Promise<void>((done) => server.listen(4795, '127.0.0.1', done));
});
test.afterAll(() => new Promise<void>((done) => server.close(() => done())));

const cite = (request: APIRequestContext, evidenceRefs: string[]) =>
  request.post('/api/v1/proposals', {
    headers: { authorization: `Bearer ${agentKey('acme')}`, 'content-type': 'application/json' },
    data: {
      requestId: uniqueRequestId('evidence-resolver'),
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 1 },
      evidenceRefs,
    },
  });

test("an admin points acme's evidence at the team's resolver; an agent's cited ticket is read there", async ({
  page,
  request,
  baseURL,
}) => {
  await page.goto('/contracts');
  await signInWithForm(page, 'carol@acme.test');
  const setting = page.getByTestId('evidence-resolver');
  const input = setting.getByTestId('evidence-resolver-input');
  await expect(setting.getByTestId('evidence-resolver-url')).toHaveText('the systems of record');

  // An origin the operator does not allow: refused and said; nothing changes.
  await input.fill('http://127.0.0.1:4799/evidence');
  await setting.getByTestId('evidence-resolver-save').click();
  await expect(setting.getByTestId('evidence-resolver-error')).toContainText('ACTION_ALLOWED_ORIGINS');
  await expect(setting.getByTestId('evidence-resolver-url')).toHaveText('the systems of record');

  await input.fill(RESOLVER);
  await input.press('Enter');
  await expect(setting.getByTestId('evidence-resolver-saved')).toHaveText('Saved.');
  await expect(setting.getByTestId('evidence-resolver-url')).toHaveText(RESOLVER);
  try {
    expect(await violations(page)).toEqual([]);
    await eachLook(page, async (look) => {
      await setting.screenshot({ path: path.join(dir, `contracts-evidence${look}.png`) });
    });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 720 });

    // The team's ticket is read from its resolver, with a request proof the helper verified.
    const cited = await cite(request, [TICKET.id]);
    expect(cited.status(), await cited.text()).toBe(201);
    const { proposal } = (await cited.json()) as { proposal: { id: string } };
    expect(asked).toContainEqual({ tenant: 'acme', ref: TICKET.id });
    // A ticket only the systems of record hold is not the resolver's: refused like a missing one.
    expect((await cite(request, ['ticket_message_73'])).status()).toBe(403);

    await page.goto(`/proposals/${proposal.id}`);
    await expect(page.getByText(TICKET.text)).toBeVisible();
    await page.goto('/contracts');
    await setting.getByTestId('evidence-resolver-clear').click();
    await expect(setting.getByTestId('evidence-resolver-url')).toHaveText('the systems of record');
    await expect(input).toHaveValue('');
  } finally {
    // Whatever failed, acme reads the systems of record again for the specs after this one.
    const cleared = await page.request.put('/api/v1/admin/evidence/settings', {
      headers: { origin: baseURL! },
      data: { resolver: null },
    });
    expect(cleared.status()).toBe(200);
  }
});
