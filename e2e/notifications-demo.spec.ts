import { expect, test } from '@playwright/test';
import type { ReceivedView } from '@/demo/receivers/received';
import { proposeHold } from './support';

// What a newcomer running `npm run demo` sees: an agent proposes, and within seconds the demo's own
// receivers (playwright.config.ts: mail catcher on port + 3, sink on port + 4) hold a signed
// webhook, a Slack message and an email to the approvers, each linking to the proposal and none
// carrying an argument value.

const sinkUrl = `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 3210) + 4}`;
const APPROVERS = ['alice@acme.test', 'bob@acme.test', 'carol@acme.test', 'ops@acme.test'];
/** The hold's argument values and the opt-in details line that would name them (the SKU is the resource's id: it may stand only as "sku filter-gray"). */
const VALUES = ['filter-gray', 'quantity', 'Hold 2', '2 ×', 'Details'];
const withoutResource = (text: string | undefined) => (text ?? '').replaceAll('sku filter-gray', '');

test('a proposal waiting for a decision reaches the webhook, Slack and the approvers by email within 5 s', async ({
  request,
  baseURL,
}) => {
  const proposal = await proposeHold(request, 'acme', { sku: 'filter-gray', quantity: 2 });
  expect(proposal.status).toBe('pending_approval');
  // Notification links say where the look came from (docs/oversight.md).
  const link = new URL(`/proposals/${proposal.id}?via=notification`, baseURL).toString();

  let received: ReceivedView | undefined;
  const arrived = async () => {
    received = (await (await request.get(`${sinkUrl}/received.json`)).json()) as ReceivedView;
    return {
      webhook: received.webhooks.some((hook) => hook.url === link),
      slack: received.slack.some((message) => message.reviewUrl === link),
      email: received.emails.some((mail) => mail.link === link),
    };
  };
  await expect.poll(arrived, { timeout: 5_000, intervals: [250] }).toEqual({ webhook: true, slack: true, email: true });

  const webhook = received!.webhooks.find((hook) => hook.url === link)!;
  expect(webhook).toMatchObject({ path: '/webhook', event: 'proposal.waiting', signature: 'valid' });
  expect(webhook.webhookId).toMatch(/^msg_/);
  const body = JSON.parse(webhook.body) as { type: string; data: { url: string; proposalId: string } };
  expect(body.type).toBe('proposal.waiting');
  expect(body.data.url).toBe(link);
  expect(body.data.proposalId).toBe(proposal.id);

  const slack = received!.slack.find((message) => message.reviewUrl === link)!;
  expect(slack.path).toBe('/slack');
  expect(slack.header).toBe('Waiting for a decision: Hold stock');
  const blocks = (
    JSON.parse(slack.body) as { blocks: { type: string; elements?: { text: { text: string }; url: string }[] }[] }
  ).blocks;
  const button = blocks.find((block) => block.type === 'actions')?.elements?.[0];
  expect(button).toMatchObject({ text: { text: 'Review' }, url: link });

  const email = received!.emails.find((mail) => mail.link === link)!;
  expect([...email.to].sort()).toEqual(APPROVERS);
  expect(email.subject).toContain('Hold stock proposed by agent acme-support-bot');
  // The facts a person acts on, the same in every channel.
  for (const fact of ['Needs you: yes: 1 more approval needed', 'Resource: sku filter-gray', 'Approvals: 0 of 1'])
    expect(email.text).toContain(fact);
  expect((JSON.parse(webhook.body) as { facts: { label: string; value: string }[] }).facts).toContainEqual({
    label: 'Resource',
    value: 'sku filter-gray',
  });
  expect(slack.body).toContain('Resource\\nsku filter-gray');
  expect(email.text).toContain(`Review: ${link}`);
  expect(email.html).toContain(`href="${link}"`);

  for (const [what, text] of [
    ['webhook', webhook.body],
    ['Slack', slack.body],
    ['email text', email.text],
    ['email HTML', email.html],
    ['email subject', email.subject],
  ]) {
    for (const value of VALUES) expect(withoutResource(text), `${what} carries "${value}"`).not.toContain(value);
  }
});

test('the receivers page lists what arrived as inert text, newest first', async ({ request }) => {
  await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
  await expect
    .poll(async () => ((await (await request.get(`${sinkUrl}/received.json`)).json()) as ReceivedView).emails.length, {
      timeout: 5_000,
    })
    .toBeGreaterThan(0);
  // Anything on this machine may POST to the sink: what it sends is shown as text, never markup.
  const forged = await request.post(`${sinkUrl}/webhook`, {
    data: '{"type":"<img src=x onerror=alert(1)>","data":{"url":"javascript:alert(1)"}}',
    headers: { 'content-type': 'application/json', 'webhook-id': 'msg_forged' },
  });
  expect(forged.status()).toBe(200);

  const response = await request.get(`${sinkUrl}/`);
  expect(response.headers()['content-type']).toBe('text/html; charset=utf-8');
  expect(response.headers()['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'");
  const html = await response.text();
  expect(html).toContain('<h1>Demo notification receivers</h1>');
  expect(html).toContain('signature valid');
  expect(html).toContain('<td>Waiting for a decision: Hold stock</td>');
  expect(html).toContain('<td>ops@acme.test, alice@acme.test, bob@acme.test, carol@acme.test</td>');
  // Links into the dashboard are clickable; anything else stays text.
  expect(html).toMatch(/<a href="http:\/\/localhost:\d+\/proposals\/prp_[^"]+">/);
  expect(html).toContain('<td>&lt;img src=x onerror=alert(1)&gt;</td>');
  expect(html).not.toContain('<img');
  expect(html).not.toContain('href="javascript:');
  // Newest first: the forged webhook heads the webhook table, and its signature does not check out.
  const firstRow = html.split('<h2>Webhooks')[1]!.split('</tr>')[1]!;
  expect(firstRow).toContain('msg_forged');
  expect(firstRow).toContain('signature invalid');
});
