import { expect, test } from '@playwright/test';
import { apiSession, signInWithForm } from './support';

// Crafted paging input is refused (API) or ignored (pages); it never reaches a query as a 500.
const crafted = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

const BAD_CURSORS: [string, string][] = [
  ['impossible date', crafted(['expiring', '9999-99-99T99:99:99.999999Z', 'prp_abc'])],
  ['day that does not exist', crafted(['expiring', '2030-02-30T10:00:00.000000Z', 'prp_abc'])],
  ['year zero', crafted(['expiring', '0000-01-01T00:00:00.000000Z', 'prp_abc'])],
  ['NUL in the id', crafted(['expiring', '2030-01-01T10:00:00.000000Z', 'prp_\u0000'])],
  ['not a cursor', 'bm9wZQ'],
];

test('the queue API answers crafted cursors and filters with 400 invalid_query', async ({ baseURL }) => {
  const api = await apiSession(baseURL!, 'alice@acme.test');
  const search = [
    ...BAD_CURSORS.map(([why, cursor]) => [why, new URLSearchParams({ cursor }).toString()]),
    ['NUL agent', 'agent=%00'],
    ['bidi agent', 'agent=bot%E2%80%AE'],
  ];
  for (const [why, query] of search) {
    const response = await api.get(`/api/v1/queue?${query}`);
    expect(response.status(), why).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code, why).toBe('invalid_query');
  }
  const first = await api.get('/api/v1/queue');
  expect(first.status()).toBe(200);
  await api.dispose();
});

test('pages ignore crafted paging input and show the first page', async ({ page }) => {
  await page.goto('/history');
  await signInWithForm(page, 'alice@acme.test');
  await expect(page.getByTestId('history-page')).toBeVisible();

  const visits: [string, string, string][] = [
    ['/contracts/attempts?before=%2B275760-09-13T00:00:00.000Z&id=att_x', 'Rejected attempts', 'attempts-heading'],
    ['/contracts/attempts?before=+275760-09-13T00:00:00.000Z&id=att_x', 'Rejected attempts', 'attempts-heading'],
    ['/contracts/attempts?before=2030-01-01T00:00:00.000Z&id=att_%00', 'Rejected attempts', 'attempts-heading'],
    ['/contracts/attempts?before=Tue%20Jan%2001%20275760&id=att_x', 'Rejected attempts', 'attempts-heading'],
    [
      '/contracts/attempts?exhausted=1&before=0000-01-01T00:00:00.000Z&id=att_x',
      'Rejected attempts',
      'attempts-heading',
    ],
    ['/history?tab=events&cursor=99999999999999999999', 'History', 'history-filters'],
    ['/history?tab=events&cursor=-1', 'History', 'history-filters'],
    ['/history?cursor=WyIrMjc1NzYwLTA5LTEzVDAwOjAwOjAwLjAwMFoiLCJwX3giXQ', 'History', 'history-filters'],
    [`/?cursor=${BAD_CURSORS[0]![1]}&sort=expiring`, 'Pending approval', 'queue-heading'],
  ];
  // The dashboard streams (it has a loading state), so a thrown page still answers 200: the page's own content must appear.
  for (const [path, heading, content] of visits) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(200);
    await expect(page.getByRole('heading', { level: 1, name: heading }), path).toBeVisible();
    await expect(page.locator(`#${content}, [data-testid="${content}"]`), path).toBeVisible();
  }
});
