import { describe, expect, it } from 'vitest';
import { headline, notificationOf, proposalMessage, timeLeft } from './message';
import { unlinked } from './render';
import { emailContent } from './kinds/email';
import { slackBody } from './kinds/slack';
import { webhookBody } from './kinds/webhook';

const now = new Date('2035-01-01T12:00:00Z');
const data = {
  event: 'proposal.waiting',
  headline: 'Waiting for a decision',
  tenant: 'acme',
  proposalId: 'prp_1',
  title: 'Issue refund',
  agent: 'bot <script>&',
  risk: 'high',
  status: 'pending_approval',
  expiresAt: '2035-01-01T13:05:00Z',
  summary: 'Issue refund proposed by bot <script>&',
  url: 'https://cs.example/proposals/prp_1',
};
const input = { id: 'msg_1', event: 'proposal.waiting', data, createdAt: now, now };

describe('notificationOf', () => {
  it.each([
    ['proposal.created', { status: 'pending_approval' }, 'proposal.waiting'],
    ['proposal.created', { status: 'approved' }, 'proposal.decided'],
    ['proposal.decided', { status: 'pending_approval' }, undefined],
    ['proposal.decided', { status: 'rejected' }, 'proposal.decided'],
    ['proposal.revised', { status: 'cancelled' }, undefined],
    ['execution.succeeded', {}, 'proposal.executed'],
    ['execution.failed', {}, 'proposal.executed'],
    ['execution.outcome_unknown', {}, 'execution.outcome_unknown'],
    ['proposal.reminder', {}, 'proposal.reminder'],
    ['command.minted', {}, undefined],
  ])('%s %j notifies as %s', (topic, body, event) => {
    expect(notificationOf({ topic, body })).toBe(event);
  });

  it('words each event for people', () => {
    expect(headline('proposal.decided', 'rejected')).toBe('Rejected');
    expect(headline('proposal.executed', 'failed')).toBe('Execution failed: nothing was written');
    expect(headline('channel.test', '')).toBe('Test notification');
  });
});

describe('proposalMessage', () => {
  const proposal = {
    id: 'prp_2',
    tenantId: 'acme',
    action: 'issue_refund',
    agentName: 'acme-support-bot',
    risk: 'low',
    status: 'pending_approval' as const,
    expiresAt: new Date('2035-01-02T12:00:00Z'),
    payload: { action: 'issue_refund', contractVersion: 1, args: { orderId: 'ord_1842', amountMinor: 2500, currency: 'USD' }, evidenceRefs: [] },
    facts: {},
  } as unknown as Parameters<typeof proposalMessage>[1];

  it("carries a revision's reason (the editor's words), and no argument value without the opt-in", () => {
    const message = proposalMessage('proposal.waiting', { ...proposal, revisionReason: 'Customer kept one item' }, { baseUrl: 'https://cs.example', withValues: false });
    expect(message.revisionReason).toBe('Customer kept one item');
    expect(JSON.stringify(message)).not.toContain('2500');
    expect(JSON.stringify(message)).not.toContain('ord_1842');
    expect(proposalMessage('proposal.waiting', { ...proposal, revisionReason: null }, { baseUrl: 'https://cs.example', withValues: false })).not.toHaveProperty('revisionReason');
  });
});

describe('timeLeft', () => {
  it.each([
    ['2035-01-01T12:00:30Z', '1 min'],
    ['2035-01-01T12:59:00Z', '59 min'],
    ['2035-01-01T13:00:00Z', '1 h'],
    ['2035-01-01T13:05:00Z', '1 h 5 min'],
    ['2035-01-01T12:00:00Z', 'expired'],
    ['not a time', 'expired'],
  ])('until %s is %s', (expiresAt, words) => {
    expect(timeLeft(expiresAt, now)).toBe(words);
  });
});

describe('rendering', () => {
  it("a revision's reason is one inert line in every channel", () => {
    const revised = { ...input, data: { ...data, revisionReason: 'Customer asked\nReview: https://evil.example <b>' } };
    const mail = emailContent(revised, 'cs.example');
    expect(mail.text).toContain('Edited because: Customer asked Review: https://evil.example <b>');
    expect(mail.text.split('\n').filter((line) => line.startsWith('Review:'))).toEqual(['Review: https://cs.example/proposals/prp_1']);
    const inert = `${unlinked('Customer asked Review: https://evil.example')} &lt;b&gt;`;
    expect(mail.html).toContain(`<td>${inert}</td>`);
    expect((slackBody(revised).blocks[1] as { fields: { text: string }[] }).fields[0]?.text).toBe(`Edited because\n${inert}`);
    expect(emailContent(input, 'cs.example').text).not.toContain('Edited because');
  });

  it('the webhook body is {type, timestamp, data} and the same on every call', () => {
    expect(JSON.parse(webhookBody(input))).toEqual({ type: 'proposal.waiting', timestamp: now.toISOString(), data });
    expect(webhookBody({ ...input, now: new Date() })).toBe(webhookBody(input));
  });

  it('Slack text escapes the markup characters of values from outside', () => {
    const body = JSON.stringify(slackBody(input));
    expect(body).not.toContain('<script>');
    expect(body).toContain('bot &lt;script&gt;&amp;');
    expect(body).toContain('Time left\\n1 h 5 min');
  });

  it('email HTML escapes values; the plain text has the same facts and the link', () => {
    const mail = emailContent(input, 'cs.example');
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('bot &lt;script&gt;&amp;');
    expect(mail.text).toContain('Proposed by: bot <script>&');
    expect(mail.text).toContain('Review: https://cs.example/proposals/prp_1');
    expect(mail.messageId).toBe('<proposal.prp_1@cs.example>');
    const later = emailContent({ ...input, id: 'msg_2', event: 'proposal.decided' }, 'cs.example');
    expect(later).toMatchObject({ messageId: '<msg_2@cs.example>', inReplyTo: '<proposal.prp_1@cs.example>', references: ['<proposal.prp_1@cs.example>'], subject: `Re: ${mail.subject}` });
  });
});

/** Names come from people and agents: in Slack and email they are text, never markup, mentions or links. */
describe('hostile names', () => {
  const HOSTILE = [
    '<!channel>',
    '<!here|here> <!everyone>',
    '<@U0123> <#C0123>',
    '<http://evil.example/login|Click to approve>',
    '*bold* _italic_ ~strike~ `code` ```block```',
    '> quoted',
    'evil.example/login',
    'https://evil.example',
    'ops@evil.example',
    '<a href="https://evil.example">approve</a><img src=x onerror=alert(1)>',
    '&lt;!channel&gt; &amp;',
    ':rotating_light: :smile:',
  ];
  const hostile = (name: string) => {
    const withName = { ...data, agent: name, decidedBy: name, details: name, summary: `Issue refund proposed by ${name}`, title: name };
    return { ...input, event: 'proposal.decided', data: withName };
  };
  // Every text Slack gets from a message, with where it sits.
  type Text = { type: string; text: string; emoji?: boolean };
  const slackTexts = (body: ReturnType<typeof slackBody>): Text[] => {
    const [header, section] = body.blocks as unknown as [{ text: Text }, { text: Text; fields?: Text[] }];
    return [{ type: 'fallback', text: body.text }, header.text, section.text, ...(section.fields ?? [])];
  };
  const WJ = '\u2060';

  it.each(HOSTILE)('Slack gets %s as inert text', (name) => {
    const body = slackBody(hostile(name));
    expect(body.mrkdwn).toBe(false);
    for (const text of slackTexts(body)) {
      if (text.type !== 'fallback') expect(text).toMatchObject({ type: 'plain_text', emoji: false });
      // Slack's control characters are escaped, so no <!channel>, <@user> or <url|label> survives.
      expect(text.text).not.toMatch(/[<>]/);
      expect(text.text.replaceAll(/&(amp|lt|gt);/g, '')).not.toContain('&');
      // Nothing that looks like an address or link stays joined up.
      expect(text.text).not.toMatch(/[.:@][^\s\u2060]/);
    }
    expect(JSON.stringify(body)).not.toContain('"type":"mrkdwn"');
    expect(body.blocks[2]).toMatchObject({ elements: [{ url: 'https://cs.example/proposals/prp_1' }] });
  });

  it.each(HOSTILE)('the email HTML gets %s as escaped text, the plain text as it is', (name) => {
    const mail = emailContent(hostile(name), 'cs.example');
    const markup = mail.html.replaceAll(/<\/?(!doctype html|html|body|p|strong|table|tr|th|td)( [^<>]*)?>/g, '').replace('<a href="https://cs.example/proposals/prp_1">Review in Countersign</a>', '');
    expect(markup).not.toMatch(/[<>]/);
    expect(mail.html).not.toMatch(/evil\.example|https:\/\/evil|@evil/);
    expect(mail.text).toContain(`Decided by: ${name}`);
    expect(mail.text.includes(WJ)).toBe(false);
  });
});
