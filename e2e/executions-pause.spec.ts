import { type APIRequestContext, expect, test } from '@playwright/test';
import { apiSession, signInWithForm } from './support';

/**
 * The tenant's emergency stop from outside: only an admin, from the dashboard's origin, pauses or
 * resumes; while paused every member sees a banner naming who paused and when, in their own zone.
 * What the stop holds back (dispatch, expiry) is tested in lib/commands/executions-pause.int.test.ts.
 */

const API = '/api/v1/admin/executions';
type State = {
  changed?: boolean;
  executions: {
    paused: boolean;
    pausedAt: string | null;
    pausedBy: { id: string; name: string | null } | null;
    reason: string | null;
  };
};

const post = (api: APIRequestContext, verb: 'pause' | 'resume', origin: string, data: unknown = {}) =>
  api.post(`${API}/${verb}`, { headers: { origin }, data });

test.describe('the emergency stop', () => {
  test.describe.configure({ mode: 'serial' });

  test('only an admin of the tenant, from the dashboard origin, may pause or resume; nothing changes otherwise', async ({
    baseURL,
    request,
  }) => {
    const [alice, dave, carol] = await Promise.all([
      apiSession(baseURL!, 'alice@acme.test'),
      apiSession(baseURL!, 'dave@acme.test'),
      apiSession(baseURL!, 'carol@acme.test'),
    ]);
    const refused = [
      { who: 'an approver', api: alice, origin: baseURL!, status: 403, code: 'forbidden' },
      { who: 'a viewer', api: dave, origin: baseURL!, status: 403, code: 'forbidden' },
      {
        who: 'an admin from a foreign origin',
        api: carol,
        origin: 'https://evil.example',
        status: 403,
        code: 'cross_origin',
      },
      { who: 'nobody signed in', api: request, origin: baseURL!, status: 401, code: 'unauthenticated' },
    ];
    for (const { who, api, origin, status, code } of refused) {
      for (const verb of ['pause', 'resume'] as const) {
        const response = await post(api, verb, origin);
        expect(response.status(), `${who} ${verb}`).toBe(status);
        expect(((await response.json()) as { error: { code: string } }).error.code, `${who} ${verb}`).toBe(code);
      }
    }
    expect((await dave.get(API)).status()).toBe(403);
    expect(((await (await carol.get(API)).json()) as State).executions.paused).toBe(false);
    await Promise.all([alice.dispose(), dave.dispose(), carol.dispose()]);
  });

  test('while paused every member sees the banner with who paused and when, in their zone; the admin resumes from Settings', async ({
    baseURL,
    browser,
  }) => {
    const carol = await apiSession(baseURL!, 'carol@acme.test');
    try {
      const paused = await post(carol, 'pause', baseURL!, { reason: 'E2E drill' });
      expect(paused.status()).toBe(200);
      expect((await paused.json()) as State).toMatchObject({
        changed: true,
        executions: { paused: true, pausedBy: { name: 'Carol' }, reason: 'E2E drill' },
      });
      expect(((await (await post(carol, 'pause', baseURL!)).json()) as State).changed).toBe(false);

      const viewer = await browser.newContext({ timezoneId: 'Asia/Tokyo' });
      const page = await viewer.newPage();
      await page.goto('/');
      await signInWithForm(page, 'dave@acme.test');
      const banner = page.getByTestId('executions-paused-banner');
      await expect(banner).toContainText('Executions are paused');
      await expect(banner.getByTestId('executions-paused-by')).toHaveText('Carol');
      await expect(banner.getByTestId('executions-paused-at')).toContainText('GMT+9');
      await expect(banner).toContainText('E2E drill');
      await expect(banner.getByTestId('executions-banner-resume-link')).toHaveCount(0);
      await viewer.close();

      const admin = await browser.newContext();
      const settings = await admin.newPage();
      await settings.goto('/settings');
      await signInWithForm(settings, 'carol@acme.test');
      await settings.getByTestId('executions-resume').click();
      await expect(settings.getByTestId('executions-pause')).toBeVisible();
      await expect(settings.getByTestId('executions-paused-banner')).toHaveCount(0);
      await admin.close();
      expect(((await (await carol.get(API)).json()) as State).executions.paused).toBe(false);
    } finally {
      await post(carol, 'resume', baseURL!);
      await carol.dispose();
    }
  });
});
