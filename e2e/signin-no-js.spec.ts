import { type APIRequestContext, expect, test } from '@playwright/test';
import { person } from './support';

// The sign-in form works as a plain HTML form: posted without JavaScript it answers a page, never a 500.
test.describe('sign-in without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('a wrong password comes back to the sign-in page with an error', async ({ page }) => {
    await page.goto('/signin?callbackUrl=%2Fhistory');
    await page.getByTestId('signin-email').fill('alice@acme.test');
    await page.getByTestId('signin-password').fill('not-the-password');
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByTestId('signin-submit').click(),
    ]);
    expect(response.status()).toBe(200);
    await expect(page).toHaveURL(/\/signin/);
    await expect(page.getByTestId('signin-error')).toHaveText('That email and password do not match an account.');
    expect((await page.context().cookies()).some((cookie) => cookie.name.endsWith('authjs.session-token'))).toBe(false);
  });

  test('the right password signs in and lands on the page asked for', async ({ page }) => {
    await page.goto('/signin?callbackUrl=%2Fhistory');
    await page.getByTestId('signin-email').fill('alice@acme.test');
    await page.getByTestId('signin-password').fill(person('alice@acme.test').password);
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByTestId('signin-submit').click(),
    ]);
    expect(response.status()).toBe(303);
    await expect(page).toHaveURL(/\/history$/);
    // The dashboard streams its content (that part needs JavaScript); the session is what this form owes.
    const session = (await (await page.context().request.get('/api/auth/session')).json()) as {
      operatorId?: string;
    } | null;
    expect(session?.operatorId).toBeTruthy();
  });
});

/** The password form's server action (its id and field prefix), as the page embeds it for posts without JavaScript. */
async function passwordAction(request: APIRequestContext): Promise<{ id: string; prefix: string }> {
  const html = await (await request.get('/signin')).text();
  const match = /name="(\$ACTION_\d+):0" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('the sign-in form has no progressive-enhancement fields');
  return { prefix: match[1]!, id: (JSON.parse(match[2]!.replaceAll('&quot;', '"')) as { id: string }).id };
}

test('raw form posts with missing or reshaped fields come back as the sign-in page, signed out, never a 500', async ({
  request,
  baseURL,
}) => {
  const { id, prefix } = await passwordAction(request);
  const ref = prefix.replace('$ACTION_', '$ACTION_REF_');
  const bound = JSON.stringify({ id, bound: '$@1' });
  const credentials = { email: 'alice@acme.test', password: person('alice@acme.test').password };
  const posts: [string, Record<string, string>][] = [
    ['the action posted as a plain form action', { [`$ACTION_ID_${id}`]: '', ...credentials }],
    ['no password field', { [ref]: '', [`${prefix}:0`]: bound, [`${prefix}:1`]: '[{}]', email: credentials.email }],
  ];
  for (const [why, multipart] of posts) {
    const response = await request.post('/signin', { multipart, headers: { origin: baseURL! }, maxRedirects: 0 });
    expect(response.status(), why).toBe(200);
    expect(await response.text(), why).toContain('data-testid="signin-form"');
    expect(
      response
        .headersArray()
        .some((header) => header.name.toLowerCase() === 'set-cookie' && header.value.includes('session-token')),
      why,
    ).toBe(false);
  }
});
