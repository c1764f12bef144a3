import fs from 'node:fs';
import path from 'node:path';
import { type APIRequestContext, expect, type Page, request as playwrightRequest } from '@playwright/test';
import type { ReceivedView } from '@/demo/receivers/received';
import type { DemoCredentials } from '@/demo/world';

/** The e2e server's data folder (scripts/e2e.ts makes a fresh one per run): its demo-credentials.json is what `npm run demo` wrote. */
export function e2eDataDir(): string {
  return path.resolve(process.env.E2E_DATA_DIR ?? '.data/e2e');
}

export function credentials(): DemoCredentials {
  return JSON.parse(fs.readFileSync(path.join(e2eDataDir(), 'demo-credentials.json'), 'utf8')) as DemoCredentials;
}

export function person(email: string) {
  const found = credentials().people.find((p) => p.email === email);
  if (!found) throw new Error(`no demo person ${email}`);
  return found;
}

export function agentKey(tenant: string): string {
  const found = credentials().agents.find((a) => a.tenant === tenant);
  if (!found) throw new Error(`no demo agent in ${tenant}`);
  return found.key;
}

let counter = 0;
export function uniqueRequestId(label: string): string {
  counter += 1;
  return `e2e-${label}-${Date.now()}-${counter}`;
}

export type Proposed = { id: string; payloadHash: string; status: string };

/** An agent of acme made for one spec: its key, and its name to filter the queue or the Proposals list by. */
export type OwnAgent = { name: string; key: string };

/**
 * Carol (acme's admin) issues a key to a new agent over the admin API. The queue and the Proposals
 * list filtered by its name hold only what the spec proposed with it, whatever the other worker
 * proposes in acme meanwhile.
 */
export async function ownAgent(
  baseURL: string,
  label: string,
  { actions = ['hold_stock', 'issue_refund'], warehouses = ['north'] } = {},
): Promise<OwnAgent> {
  const carol = await apiSession(baseURL, 'carol@acme.test');
  const name = `${label}-${Date.now()}`;
  const created = await carol.post('/api/v1/admin/agent-keys', {
    headers: { origin: baseURL },
    data: { name, actions, grants: { warehouses } },
  });
  expect(created.status()).toBe(201);
  const { key } = (await created.json()) as { key: string };
  await carol.dispose();
  return { name, key };
}

async function propose(
  api: APIRequestContext,
  key: string,
  action: string,
  args: Record<string, unknown>,
  evidenceRefs: string[],
): Promise<Proposed> {
  const response = await api.post('/api/v1/proposals', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    data: { requestId: uniqueRequestId(action), action, contractVersion: 1, args, evidenceRefs },
  });
  expect(response.status()).toBe(201);
  return ((await response.json()) as { proposal: Proposed }).proposal;
}

/** Proposes a stock hold as the tenant's seeded agent (or the spec's own) would, over real HTTP. */
export function proposeHold(
  api: APIRequestContext,
  by: string | OwnAgent,
  args: Record<string, unknown> = { sku: 'filter-blue', quantity: 2 },
): Promise<Proposed> {
  return propose(api, typeof by === 'string' ? agentKey(by) : by.key, 'hold_stock', args, []);
}

/** Proposes a refund as acme's seeded agent (or the spec's own) would; the gates resolve evidence in the tenant. */
export function proposeRefund(
  api: APIRequestContext,
  args: Record<string, unknown>,
  evidenceRefs: string[] = [],
  by?: OwnAgent,
): Promise<Proposed> {
  return propose(api, by?.key ?? agentKey('acme'), 'issue_refund', args, evidenceRefs);
}

/** Signs in through the form, as a person would. */
export async function signInWithForm(page: Page, email: string) {
  await page.getByTestId('signin-email').fill(email);
  await page.getByTestId('signin-password').fill(person(email).password);
  await page.getByTestId('signin-submit').click();
}

/** Signs in without a browser through next-auth's own flow (GET csrf, POST the credentials callback); answers where it redirects. */
export async function postCredentials(api: APIRequestContext, email: string, password: string): Promise<string> {
  const csrf = (await (await api.get('/api/auth/csrf')).json()) as { csrfToken: string };
  const response = await api.post('/api/auth/callback/credentials', {
    form: { csrfToken: csrf.csrfToken, email, password, callbackUrl: '/' },
    maxRedirects: 0,
  });
  expect([302, 303]).toContain(response.status());
  return response.headers().location ?? '';
}

/** A browserless session through next-auth's own flow: GET csrf, POST the credentials callback. */
export async function apiSession(baseURL: string, email: string): Promise<APIRequestContext> {
  const api = await playwrightRequest.newContext({ baseURL });
  await postCredentials(api, email, person(email).password);
  const session = (await (await api.get('/api/auth/session')).json()) as { operatorId?: string } | null;
  expect(session?.operatorId).toBeTruthy();
  return api;
}

export type CheckpointAnswer = {
  tenant: string;
  seq: number;
  hash: string;
  at: string;
  checkpoint: string;
  keys: { kid: string; x: string }[];
};

/** `GET /api/v1/audit/checkpoint` as a member: the signed head of their tenant's audit chain. */
export async function checkpointOf(api: APIRequestContext): Promise<CheckpointAnswer> {
  const response = await api.get('/api/v1/audit/checkpoint');
  expect(response.status()).toBe(200);
  return (await response.json()) as CheckpointAnswer;
}

/**
 * The port of the specs' own webhook sink: playwright.config.ts allows exactly this origin
 * (NOTIFY_ALLOWED_PRIVATE_ORIGINS), nothing else on this machine is a reachable target.
 */
export const E2E_SINK_PORT = Number(process.env.E2E_PORT ?? 3210) + 5;

/** The payments scope's credential of the e2e systems of record (for writes made outside Countersign). */
function paymentsCredential(): string {
  const file = path.join(e2eDataDir(), 'secrets.json');
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { scopeCredentials: { payments: string } }).scopeCredentials
    .payments;
}

/** Someone refunds outside Countersign: the order's facts move under any open proposal on it. */
export async function refundDirectly(
  request: APIRequestContext,
  orderId: string,
  amountMinor: number,
  currency = 'USD',
) {
  const response = await request.post(`${credentials().systemsOfRecordUrl}/refunds`, {
    headers: { authorization: `Bearer ${paymentsCredential()}` },
    data: { orderId, amountMinor, currency, idempotencyKey: uniqueRequestId('direct') },
  });
  expect(response.status()).toBeLessThan(300);
}

/** The demo's receivers (playwright.config.ts: port + 4), where the server's email lands. */
export const DEMO_RECEIVERS_URL = `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 3210) + 4}`;

/** The six-digit code of the newest email to `email` (the receivers stand for the owner's inbox), waiting for it to arrive. */
export async function codeEmailedTo(api: APIRequestContext, email: string): Promise<string> {
  let code: string | undefined;
  await expect
    .poll(
      async () => {
        const received = (await (await api.get(`${DEMO_RECEIVERS_URL}/received.json`)).json()) as ReceivedView;
        // Newest first.
        code = /\b(\d{6})\b/.exec(
          received.emails.find((mail) => mail.to.includes(email) && mail.subject.includes('code'))?.subject ?? '',
        )?.[1];
        return code;
      },
      { timeout: 10_000, intervals: [250] },
    )
    .toBeDefined();
  return code!;
}

/** Runs `body` in each look the UI is checked in: light and dark, at 1440 and 390 px (`-phone`). */
export async function eachLook(page: Page, body: (look: string) => Promise<void>) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [name, width] of [
      ['', 1440],
      ['-phone', 390],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      await body(`${name}-${scheme}`);
    }
  }
}
