import { describe, expect, it } from 'vitest';
import type { SinkRequest } from './http-sink';
import type { CaughtMail } from './mail-catcher';
import { receivedView, renderReceivedPage } from './received';

const LINK = 'http://localhost:3000/proposals/prp_1';

const request = (overrides: Partial<SinkRequest>): SinkRequest => ({
  path: '/webhook',
  headers: {},
  body: '',
  receivedAt: '2026-01-01T00:00:00.000Z',
  signature: 'unchecked',
  status: 200,
  ...overrides,
});

const mail = (overrides: Partial<CaughtMail>): CaughtMail => ({
  envelopeTo: ['ops@acme.test', 'alice@acme.test'],
  from: 'countersign@localhost',
  to: ['ops@acme.test', 'alice@acme.test'],
  subject: '[Countersign] Hold stock proposed by bot (prp_1)',
  text: `Waiting for a decision\n\nReview: ${LINK}\n`,
  html: '',
  messageId: '<m@localhost>',
  inReplyTo: undefined,
  references: [],
  headers: {},
  receivedAt: '2026-01-01T00:00:02.000Z',
  ...overrides,
});

const webhook = request({
  headers: { 'webhook-id': 'msg_1' },
  body: JSON.stringify({ type: 'proposal.waiting', data: { url: LINK } }),
  signature: 'valid',
});
const slack = request({
  path: '/slack',
  body: JSON.stringify({
    blocks: [
      { type: 'header', text: { text: 'Waiting for a decision: Hold stock' } },
      { type: 'actions', elements: [{ type: 'button', url: LINK }] },
    ],
  }),
  receivedAt: '2026-01-01T00:00:01.000Z',
});

describe('receivedView', () => {
  it('sorts what arrived into webhooks, Slack messages, emails and other requests', () => {
    const view = receivedView([webhook, slack, request({ path: '/x', body: 'hello' })], [mail({})]);
    expect(view.webhooks).toEqual([
      {
        receivedAt: webhook.receivedAt,
        path: '/webhook',
        event: 'proposal.waiting',
        webhookId: 'msg_1',
        signature: 'valid',
        url: LINK,
        body: webhook.body,
      },
    ]);
    expect(view.slack).toEqual([
      {
        receivedAt: slack.receivedAt,
        path: '/slack',
        header: 'Waiting for a decision: Hold stock',
        reviewUrl: LINK,
        body: slack.body,
      },
    ]);
    expect(view.emails).toMatchObject([
      {
        to: ['ops@acme.test', 'alice@acme.test'],
        subject: '[Countersign] Hold stock proposed by bot (prp_1)',
        link: LINK,
      },
    ]);
    expect(view.other).toEqual([{ receivedAt: '2026-01-01T00:00:00.000Z', path: '/x', bytes: 5 }]);
  });

  it('lists the newest first', () => {
    const later = request({ ...webhook, headers: { 'webhook-id': 'msg_2' }, receivedAt: '2026-01-01T00:01:00.000Z' });
    expect(receivedView([webhook, later], []).webhooks.map((hook) => hook.webhookId)).toEqual(['msg_2', 'msg_1']);
  });
});

describe('renderReceivedPage', () => {
  it('shows everything as text and links only into the dashboard', () => {
    const forged = request({
      headers: { 'webhook-id': '<b>id</b>' },
      body: JSON.stringify({ type: '<script>alert(1)</script>', data: { url: 'javascript:alert(1)' } }),
      signature: 'invalid',
    });
    const html = renderReceivedPage(receivedView([webhook, forged], [mail({ subject: '"><img src=x>' })]), {
      appUrl: 'http://localhost:3000',
      smtpUrl: 'smtp://127.0.0.1:4025',
    });
    expect(html).toContain(`<a href="${LINK}">${LINK}</a>`);
    expect(html).toContain('<td>javascript:alert(1)</td>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;b&gt;id&lt;/b&gt;');
    expect(html).toContain('&quot;&gt;&lt;img src=x&gt;');
    expect(html).not.toMatch(/<script|<img|<b>/);
    expect(html).toContain('signature invalid');
    expect(html).toContain('No Slack messages yet.');
  });
});
