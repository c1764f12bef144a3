import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type APIRequestContext, expect, request as playwrightRequest, test } from '@playwright/test';
import postgres from 'postgres';
import { verifyCheckpoint } from '../lib/audit/checkpoint';
import type { PublicJwk } from '../lib/signing/keys';
import { cli } from './cli-runner';
import { agentKey, apiSession, checkpointOf, postCredentials, proposeRefund, signInWithForm } from './support';

// The evidence trail as an auditor meets it (docs/design.md §8): sign-ins recorded, the proposal page's
// evidence bundle checked offline by the CLI, signed checkpoints of the chain head, and both
// routes closed to everyone but members of the tenant.

/** The e2e server's PostgreSQL database, when the run uses one (CI); PGlite is held open by the server. */
const serverDatabaseUrl = process.env.E2E_DATABASE_URL;

async function trustedKeys(api: APIRequestContext): Promise<{ keys: PublicJwk[] }> {
  return (await (await api.get('/.well-known/jwks.json')).json()) as { keys: PublicJwk[] };
}

let scratch = '';
test.beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-evidence-'));
});
test.afterAll(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

test("a sign-in, a refused sign-in and a sign-out each add one event to the person's tenant; an unknown email adds none anywhere", async ({
  baseURL,
}) => {
  // Watchers in each tenant read the chain head through the checkpoint route.
  const acme = await apiSession(baseURL!, 'alice@acme.test');
  const globex = await apiSession(baseURL!, 'erin@globex.test');
  const before = { acme: (await checkpointOf(acme)).seq, globex: (await checkpointOf(globex)).seq };
  const heads = async () => ({ acme: (await checkpointOf(acme)).seq, globex: (await checkpointOf(globex)).seq });

  const bob = await apiSession(baseURL!, 'bob@acme.test');
  expect(await heads()).toEqual({ acme: before.acme + 1, globex: before.globex });

  const stranger = await playwrightRequest.newContext({ baseURL });
  const wrong = 'not bob’s password, and never logged';
  expect(await postCredentials(stranger, 'bob@acme.test', wrong)).toContain('error=CredentialsSignin');
  expect(await heads()).toEqual({ acme: before.acme + 2, globex: before.globex });

  const unknown = 'nobody-at-all@acme.test';
  expect(await postCredentials(stranger, unknown, wrong)).toContain('error=CredentialsSignin');
  expect(await heads()).toEqual({ acme: before.acme + 2, globex: before.globex });

  const csrf = (await (await bob.get('/api/auth/csrf')).json()) as { csrfToken: string };
  expect([302, 303]).toContain(
    (await bob.post('/api/auth/signout', { form: { csrfToken: csrf.csrfToken }, maxRedirects: 0 })).status(),
  );
  expect(await heads()).toEqual({ acme: before.acme + 3, globex: before.globex });

  // Where the test can read the server's database, the events themselves: type, actor, no secrets.
  if (serverDatabaseUrl) {
    const sql = postgres(serverDatabaseUrl, { max: 1, onnotice: () => {} });
    try {
      const rows = await sql<
        {
          type: string;
          actor_type: string;
          actor_id: string;
          reason_code: string | null;
          data: Record<string, unknown>;
        }[]
      >`
        select type, actor_type, actor_id, reason_code, data from audit_events where tenant_id = 'acme' and seq > ${before.acme} order by seq`;
      const [bobId] = await sql<{ id: string }[]>`select id from users where email = 'bob@acme.test'`;
      expect(rows.map((row) => [row.type, row.actor_type, row.actor_id, row.reason_code])).toEqual([
        ['auth.signed_in', 'user', bobId!.id, 'credentials'],
        ['auth.sign_in_failed', 'system', 'sign-in', 'wrong_password'],
        ['session.ended', 'user', bobId!.id, 'signed_out'],
      ]);
      const everything = JSON.stringify(await sql`select * from audit_events`);
      expect(everything).not.toContain(wrong);
      expect(everything).not.toContain(unknown);
    } finally {
      await sql.end();
    }
  }
  await Promise.all([acme, globex, bob, stranger].map((context) => context.dispose()));
});

test('the evidence bundle downloads from the proposal page and verifies offline; a changed amount does not', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const proposal = await proposeRefund(request, {
    orderId: 'ord_1842',
    amountMinor: 200,
    currency: 'USD',
    reason: 'Evidence bundle: one filter missing',
  });
  await page.goto(`/proposals/${proposal.id}`);
  await signInWithForm(page, 'alice@acme.test');
  await page.getByTestId('approve').click();
  await page.getByTestId('confirm-approve').click();
  await expect(page.getByTestId('execution-outcome')).toHaveAttribute('data-status', 'succeeded', { timeout: 20_000 });

  const link = page.getByTestId('evidence-bundle-download');
  await expect(link).toHaveText('Download evidence bundle');
  await expect(link).toHaveAttribute('href', `/api/v1/proposals/${proposal.id}/evidence-bundle`);
  await expect(page.getByTestId('evidence-bundle')).toContainText(
    'npm run cli -- bundle:verify <file> checks it offline',
  );
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  expect(download.suggestedFilename()).toBe(`evidence-${proposal.id}.json`);
  const file = path.join(scratch, download.suggestedFilename());
  await download.saveAs(file);

  const text = fs.readFileSync(file, 'utf8');
  expect(text).not.toMatch(/"d"\s*:/);
  const bundle = JSON.parse(text) as {
    format: string;
    payloadHash: string;
    payload: { args: { amountMinor: number } };
    events: { type: string; proposalId: string; inclusion: { treeSize: number } }[];
    checkpoint: string;
  };
  expect(bundle.format).toBe('countersign.evidence-bundle/4');
  expect(bundle.payloadHash).toBe(proposal.payloadHash);
  expect(bundle.events.map((event) => event.type)).toEqual([
    'proposal.created',
    'proposal.approved',
    'command.minted',
    'execution.started',
    'execution.succeeded',
  ]);
  // Only this proposal's events, each with its inclusion proof in the bundle's checkpoint (a signed note): no other proposal's rows.
  expect(bundle).not.toHaveProperty('interleaved');
  for (const event of bundle.events)
    expect(event).toMatchObject({
      proposalId: proposal.id,
      inclusion: { treeSize: Number(bundle.checkpoint.split('\n')[1]) },
    });

  const verified = await cli(scratch, ['bundle:verify', file]);
  expect(verified.code, verified.stdout + verified.stderr).toBe(0);
  expect(verified.stdout).toMatch(
    /^ok {3}inclusion: 5 event\(s\) of this proposal, each included in checkpoint #\d+$/m,
  );
  expect(verified.stdout).toContain('The bundle verifies.');

  const tampered = path.join(scratch, 'tampered.json');
  fs.writeFileSync(
    tampered,
    JSON.stringify({
      ...bundle,
      payload: { ...bundle.payload, args: { ...bundle.payload.args, amountMinor: 20_000 } },
    }),
  );
  const refused = await cli(scratch, ['bundle:verify', tampered]);
  expect(refused.code).toBe(1);
  expect(refused.stdout).toContain('FAIL payload_hash');
  expect(refused.stderr).toContain('the bundle does not verify: payload_hash');

  // Pinned to the keys the server publishes, not the ones the bundle carries.
  const jwks = path.join(scratch, 'jwks.json');
  fs.writeFileSync(jwks, JSON.stringify(await trustedKeys(request)));
  const pinned = await cli(scratch, ['bundle:verify', file, '--keys', jwks]);
  expect(pinned.code, pinned.stdout + pinned.stderr).toBe(0);
  expect(pinned.stdout).toContain('The bundle verifies.');
  expect(pinned.stdout).not.toContain('the keys came from the bundle itself');
});

test("a checkpoint is the member's tenant head, signed with a published key; audit:verify accepts it against the server's database", async ({
  baseURL,
  request,
}) => {
  const alice = await apiSession(baseURL!, 'alice@acme.test');
  const answer = await checkpointOf(alice);
  const { keys } = await trustedKeys(request);
  const claim = await verifyCheckpoint(answer.checkpoint, keys);
  expect(claim).toEqual({ tenant: 'acme', seq: answer.seq, hash: answer.hash, at: answer.at });
  expect(answer.seq).toBeGreaterThan(0);
  expect(answer.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(JSON.stringify(answer)).not.toMatch(/"d"\s*:/);
  const erin = await apiSession(baseURL!, 'erin@globex.test');
  expect((await verifyCheckpoint((await checkpointOf(erin)).checkpoint, keys)).tenant).toBe('globex');

  if (serverDatabaseUrl) {
    // The head the server signed is in the database's chain now (which may since have grown).
    const sql = postgres(serverDatabaseUrl, { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql<
        { hash: string }[]
      >`select hash from audit_events where tenant_id = 'acme' and seq = ${answer.seq}`;
      expect(row?.hash).toBe(answer.hash);
    } finally {
      await sql.end();
    }
    const file = path.join(scratch, 'checkpoint.json');
    fs.writeFileSync(file, JSON.stringify(answer));
    const jwks = path.join(scratch, 'jwks-checkpoint.json');
    fs.writeFileSync(jwks, JSON.stringify({ keys }));
    const verified = await cli(scratch, ['audit:verify', '--tenant', 'acme', '--checkpoint', file, '--keys', jwks], {
      env: { DATABASE_URL: serverDatabaseUrl },
    });
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(
      /^acme: verified through #\d+ \(sha256:[0-9a-f]{64}\), matching 1 signed checkpoint\(s\)$/m,
    );
  }
  await Promise.all([alice.dispose(), erin.dispose()]);
});

test.describe('who may read the evidence', () => {
  test('the bundle and the checkpoint need a session: none, or an agent key, is 401', async ({ request }) => {
    const proposal = await proposeRefund(request, {
      orderId: 'ord_1842',
      amountMinor: 100,
      currency: 'USD',
      reason: 'Evidence access check',
    });
    for (const url of [`/api/v1/proposals/${proposal.id}/evidence-bundle`, '/api/v1/audit/checkpoint']) {
      const anonymous = await request.get(url);
      expect(anonymous.status(), url).toBe(401);
      expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('unauthenticated');
      const agent = await request.get(url, { headers: { authorization: `Bearer ${agentKey('acme')}` } });
      expect(agent.status(), url).toBe(401);
      expect(await agent.text()).not.toContain(proposal.payloadHash);
    }
  });

  test("another tenant's proposal is not found, exactly like an unknown id", async ({ baseURL, request }) => {
    const proposal = await proposeRefund(request, {
      orderId: 'ord_1842',
      amountMinor: 100,
      currency: 'USD',
      reason: 'Evidence tenant check',
    });
    const erin = await apiSession(baseURL!, 'erin@globex.test');
    const foreign = await erin.get(`/api/v1/proposals/${proposal.id}/evidence-bundle`);
    const unknown = await erin.get('/api/v1/proposals/prp_doesnotexist00000000/evidence-bundle');
    expect(foreign.status()).toBe(404);
    expect(unknown.status()).toBe(404);
    expect(await foreign.text()).toBe(await unknown.text());
    expect(foreign.headers()['content-disposition']).toBeUndefined();
    // Its own tenant's member gets it, as an attachment, without private key material.
    const alice = await apiSession(baseURL!, 'alice@acme.test');
    const own = await alice.get(`/api/v1/proposals/${proposal.id}/evidence-bundle`);
    expect(own.status()).toBe(200);
    expect(own.headers()['content-disposition']).toBe(`attachment; filename="evidence-${proposal.id}.json"`);
    expect(await own.text()).not.toMatch(/"d"\s*:/);
    // A key never rides along with a session: the header alone decides, and it is refused.
    for (const url of [
      `/api/v1/proposals/${proposal.id}/evidence-bundle`,
      '/api/v1/audit/checkpoint',
      '/api/v1/audit/events?format=jsonl',
    ]) {
      const withKey = await alice.get(url, { headers: { authorization: `Bearer ${agentKey('acme')}` } });
      expect(withKey.status(), url).toBe(401);
    }
    await Promise.all([erin.dispose(), alice.dispose()]);
  });
});
