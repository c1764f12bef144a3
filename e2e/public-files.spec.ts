import { expect, test } from '@playwright/test';
import { signInWithForm } from './support';

// public/: the icon set and robots.txt, served to anyone (no session), and linked from every page.
const FILES: [string, string][] = [
  ['/robots.txt', 'text/plain'],
  ['/icon.svg', 'image/svg+xml'],
  ['/favicon.ico', 'image/x-icon'],
  ['/apple-touch-icon.png', 'image/png'],
  ['/icon-192.png', 'image/png'],
  ['/icon-512.png', 'image/png'],
  ['/site.webmanifest', 'application/manifest+json'],
];

test('the icon set, manifest and robots.txt are served without a session', async ({ playwright, baseURL }) => {
  const anonymous = await playwright.request.newContext({ baseURL });
  for (const [path, type] of FILES) {
    const response = await anonymous.get(path, { maxRedirects: 0 });
    expect(response.status(), path).toBe(200);
    expect(response.headers()['content-type'], path).toContain(type);
  }
  expect(await (await anonymous.get('/robots.txt')).text()).toMatch(/^User-agent: \*\nDisallow: \/\n$/);
  const manifest = (await (await anonymous.get('/site.webmanifest')).json()) as { icons: { src: string }[] };
  for (const icon of manifest.icons)
    expect((await anonymous.get(icon.src, { maxRedirects: 0 })).status(), icon.src).toBe(200);
  await anonymous.dispose();
});

test('the dashboard links its icons and manifest and asks not to be indexed', async ({ page }) => {
  await page.goto('/');
  await signInWithForm(page, 'alice@acme.test');
  await expect(page.getByRole('heading', { name: 'Pending approval' })).toBeVisible();
  const head = page.locator('head');
  await expect(head.locator('link[rel="icon"][href^="/favicon.ico"]')).toHaveCount(1);
  await expect(head.locator('link[rel="icon"][href^="/icon.svg"][type="image/svg+xml"]')).toHaveCount(1);
  await expect(head.locator('link[rel="apple-touch-icon"][href^="/apple-touch-icon.png"]')).toHaveCount(1);
  await expect(head.locator('link[rel="manifest"][href^="/site.webmanifest"]')).toHaveCount(1);
  await expect(head.locator('meta[name="robots"]')).toHaveAttribute('content', 'noindex, nofollow');
});
