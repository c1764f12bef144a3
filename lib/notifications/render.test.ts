import { describe, expect, it } from 'vitest';
import { headline, notificationOf, timeLeft } from './message';
import { emailContent, slackBody, webhookBody } from './render';

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
  it('the webhook body is {type, timestamp, data} and the same on every call', () => {
    expect(JSON.parse(webhookBody(input))).toEqual({ type: 'proposal.waiting', timestamp: now.toISOString(), data });
    expect(webhookBody({ ...input, now: new Date() })).toBe(webhookBody(input));
  });

  it('Slack text escapes the markup characters of values from outside', () => {
    const body = JSON.stringify(slackBody(input));
    expect(body).not.toContain('<script>');
    expect(body).toContain('bot &lt;script&gt;&amp;');
    expect(body).toContain('*Time left*\\n1 h 5 min');
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
