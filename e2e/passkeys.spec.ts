import { type APIRequestContext, expect, test } from '@playwright/test';
import { verifyBundle } from '@/lib/audit/bundle-verify';
import { apiSession, proposeHold, signInWithForm } from './support';

/**
 * Passkeys in a real Chromium with its virtual authenticator (the DevTools protocol's WebAuthn
 * domain: a platform authenticator that verifies the user), against the production server at
 * http://localhost, a secure context: alice adds a passkey in Settings → Security, approves a
 * proposal whose rule asks for a passkey after seeing what she signs, and the evidence bundle
 * verifies her signature offline. bob, who has none, is refused `passkey_required`. acme's
 * hold_stock rules are published back as they were at the end (other specs expect them).
 */

const API = '/api/v1/admin/policies';
type View = { action: string; rules: Record<string, unknown>[]; expiryHours: number };

async function holdPolicy(api: APIRequestContext): Promise<View> {
  const response = await api.get(API);
  expect(response.status()).toBe(200);
  return ((await response.json()) as { policies: View[] }).policies.find((view) => view.action === 'hold_stock')!;
}

async function publishHold(api: APIRequestContext, baseURL: string, rules: Record<string, unknown>[], note: string) {
  const now = await holdPolicy(api);
  const response = await api.put(API, { headers: { origin: baseURL }, data: { policies: [{ ...now, rules }], note } });
  expect(response.status()).toBe(200);
}

test('alice adds a passkey, approves with it where the rule asks, and the bundle verifies her signature offline', async ({
  page,
  baseURL,
  browser,
}) => {
  const carol = await apiSession(baseURL!, 'carol@acme.test');
  const original = await holdPolicy(carol);
  const signedRule = {
    id: 'holds-above-3-signed',
    description: 'Holds above 3 need a passkey',
    when: { field: 'quantity', above: 3 },
    outcome: 'needs_approval',
    approvals: 1,
    role: 'approver',
    passkey: true,
  };
  await publishHold(carol, baseURL!, [signedRule, ...original.rules], 'Passkey spec: big holds signed');
  try {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
      },
    });

    await page.goto('/settings/security');
    await signInWithForm(page, 'alice@acme.test');
    await expect(page).toHaveURL(/\/settings\/security$/);
    await expect(page.getByTestId('passkey-host-problem')).toHaveCount(0);
    await page.getByTestId('passkey-name').fill('YubiKey 5');
    await page.getByTestId('passkey-add').click();
    const row = page.locator('[data-testid="passkey-row"][data-name="YubiKey 5"]');
    await expect(row).toBeVisible();
    await expect(row.getByTestId('passkey-last-used')).toHaveText('never used');

    const proposal = await proposeHold(page.request, 'acme', { sku: 'filter-blue', quantity: 4 });
    const bob = await apiSession(baseURL!, 'bob@acme.test');
    const refused = await bob.post(`/api/v1/proposals/${proposal.id}/decisions`, {
      headers: { origin: baseURL! },
      data: { decision: 'approve', payloadHash: proposal.payloadHash },
    });
    expect(refused.status()).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('passkey_required');
    // On the page, bob is told before he tries, and offered to add one.
    const bobPage = await browser.newPage({ baseURL });
    await bobPage.goto(`/proposals/${proposal.id}`);
    await signInWithForm(bobPage, 'bob@acme.test');
    await bobPage.getByTestId('approve').click();
    await expect(bobPage.getByTestId('passkey-needed')).toContainText(
      'must be signed with your passkey, and you have none yet',
    );
    await expect(bobPage.getByTestId('add-passkey-offer')).toHaveAttribute('href', '/settings/security');
    await bobPage.close();

    await page.goto(`/proposals/${proposal.id}`);
    await page.getByTestId('approve').click();
    const confirm = page.getByRole('group', { name: 'Confirm approval' });
    await expect(confirm.getByTestId('passkey-signing')).toContainText(
      'This approval must be signed with your passkey.',
    );
    await expect(confirm.getByTestId('passkey-statement')).toContainText('Hold 4 × filter-blue');
    await expect(confirm.getByTestId('passkey-statement-hash')).toHaveText(proposal.payloadHash);
    await confirm.getByTestId('confirm-approve').click();
    await expect(page.getByTestId('status-chip')).toHaveText(/^(approved|executing|succeeded)$/);
    await expect(page.getByTestId('decision-outcome')).toContainText('Approved by Alice');

    await page.goto('/settings/security');
    await expect(row.getByTestId('passkey-last-used')).toContainText('last used');

    const bundle = await page.request.get(`/api/v1/proposals/${proposal.id}/evidence-bundle`);
    expect(bundle.status()).toBe(200);
    const report = await verifyBundle(await bundle.json());
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
    expect(report.verified.join('\n')).toMatch(
      /approved by Alice[^\n]* with passkey ‘YubiKey 5’ \(signature verified; key registered by the server at #\d+;/,
    );

    // Where no rule asks for it, a rejection may be signed too: the box is ticked for someone with a passkey.
    const small = await proposeHold(page.request, 'acme', { sku: 'filter-gray', quantity: 1 });
    await page.goto(`/proposals/${small.id}`);
    await page.getByTestId('reject').click();
    await page.getByTestId('reject-reason').fill('Customer withdrew the request');
    await expect(page.getByTestId('passkey-sign-choice')).toBeChecked();
    await expect(page.getByTestId('passkey-statement')).toContainText('Reject: Hold 1 × filter-gray');
    await page.getByTestId('confirm-reject').click();
    await expect(page.getByTestId('status-chip')).toHaveText('rejected');
    const rejected = await verifyBundle(
      await (await page.request.get(`/api/v1/proposals/${small.id}/evidence-bundle`)).json(),
    );
    expect(rejected.checks.filter((check) => !check.ok)).toEqual([]);
    expect(rejected.verified.join('\n')).toMatch(
      /rejected by Alice[^\n]* with passkey ‘YubiKey 5’ \(signature verified/,
    );

    // Alice lost it: carol (admin) resets it in Settings → Members.
    const admin = await browser.newPage({ baseURL });
    await admin.goto('/settings/members');
    await signInWithForm(admin, 'carol@acme.test');
    const aliceRow = admin.locator('[data-testid="member"][data-email="alice@acme.test"]');
    await aliceRow.getByTestId('member-passkeys').click();
    await expect(aliceRow.locator('[data-testid="member-passkey"][data-name="YubiKey 5"]')).toContainText('last used');
    await aliceRow.getByTestId('member-passkey-reset').click();
    await expect(aliceRow.getByTestId('member-passkeys-list')).toContainText('No passkey.');
    await admin.close();
    await page.goto('/settings/security');
    await expect(page.getByTestId('passkeys-none')).toBeVisible();
  } finally {
    await publishHold(carol, baseURL!, original.rules, 'Restore the rules the other specs expect');
  }
});

test('on an IP address the Security page says passkeys need a host name and offers localhost', async ({
  page,
  baseURL,
}) => {
  const byAddress = baseURL!.replace('//localhost:', '//127.0.0.1:');
  await page.goto(`${byAddress}/settings/security`);
  await signInWithForm(page, 'bob@acme.test');
  await expect(page).toHaveURL(`${byAddress}/settings/security`);
  await expect(page.getByTestId('passkey-host-problem')).toContainText('Passkeys need a host name');
  await expect(page.getByTestId('passkey-host-problem').getByRole('link')).toHaveAttribute(
    'href',
    `${baseURL}/settings/security`,
  );
  await expect(page.getByTestId('passkey-add')).toBeDisabled();
});
