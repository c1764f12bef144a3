import { describe, expect, it } from 'vitest';
import { channelInput, channelPatch, displayTarget, notificationSettingsInput } from './channels';
import { newWebhookSecret } from './kinds/webhook';

describe('channelInput', () => {
  it.each([
    ['a webhook on https', { kind: 'webhook', target: 'https://hooks.example.com/countersign' }],
    ['a webhook on a local port', { kind: 'webhook', target: 'http://127.0.0.1:4030/webhook' }],
    [
      'a slack incoming webhook with events',
      {
        kind: 'slack',
        target: 'https://hooks.slack.com/services/T0/B0/x',
        events: ['proposal.waiting', 'proposal.escalated'],
      },
    ],
    ['an email address', { kind: 'email', target: 'ops@acme.test' }],
  ])('accepts %s', (_name, input) => {
    expect(channelInput.safeParse(input).success).toBe(true);
  });

  it.each([
    ['an unknown kind', { kind: 'sms', target: '+15550100' }, 'kind', 'must be webhook, slack or email'],
    ['an ftp target', { kind: 'webhook', target: 'ftp://files.example.com/x' }, 'target', 'must be an http(s) URL'],
    ['a relative URL', { kind: 'slack', target: '/hooks/x' }, 'target', 'must be an absolute http(s) URL'],
    [
      'credentials in the URL',
      { kind: 'webhook', target: 'https://user:pw@hooks.example.com/' },
      'target',
      'must not carry a user name or password',
    ],
    ['a fragment', { kind: 'webhook', target: 'https://hooks.example.com/#x' }, 'target', 'must not have a #fragment'],
    [
      'a URL for email',
      { kind: 'email', target: 'https://mail.example.com' },
      'target',
      'must be an email address like ops@example.com',
    ],
    [
      'two addresses',
      { kind: 'email', target: 'a@example.com, b@example.com' },
      'target',
      'must be an email address like ops@example.com',
    ],
    [
      'surrounding spaces (never trimmed)',
      { kind: 'email', target: ' ops@acme.test' },
      'target',
      'must not start or end with spaces',
    ],
    ['an empty target', { kind: 'webhook', target: '' }, 'target', 'must not be empty'],
    [
      'a 2049-character target',
      { kind: 'webhook', target: `https://x.example/${'a'.repeat(2031)}` },
      'target',
      'must be at most 2048 characters',
    ],
    [
      'an unknown event',
      { kind: 'email', target: 'ops@acme.test', events: ['proposal.created'] },
      'events',
      expect.stringMatching(
        /^must be one of proposal\.waiting, proposal\.reminder, .*audit\.chain_broken, oversight\.rubber_stamp$/,
      ),
    ],
    [
      'events that are not a list',
      { kind: 'email', target: 'ops@acme.test', events: 'proposal.waiting' },
      'events',
      'must be a list of notification event names',
    ],
    [
      'a repeated event',
      { kind: 'email', target: 'ops@acme.test', events: ['proposal.waiting', 'proposal.waiting'] },
      'events',
      'must not repeat an event',
    ],
    ['no events', { kind: 'email', target: 'ops@acme.test', events: [] }, 'events', 'must name at least one event'],
    [
      'an unknown field',
      { kind: 'email', target: 'ops@acme.test', secret: 'whsec_mine' },
      '',
      'Unrecognized key: "secret"',
    ],
  ])('refuses %s', (_name, input, field, message) => {
    const parsed = channelInput.safeParse(input);
    expect(parsed.success).toBe(false);
    const issue = parsed.error!.issues[0]!;
    expect(issue.path[0] ?? '').toBe(field);
    expect(issue.message).toEqual(message);
  });
});

describe('channelPatch and settings', () => {
  it.each([
    [{}, false],
    [{ enabled: false }, true],
    [{ enabled: 'no' }, false],
    [{ events: ['proposal.decided'] }, true],
    [{ kind: 'slack' }, false],
  ])('a patch %j is valid: %s', (patch, valid) => {
    expect(channelPatch.safeParse(patch).success).toBe(valid);
  });

  it.each([
    [{ reminderLeadMinutes: 60, escalateAfterMinutes: 0, notifyWithValues: false }, true],
    [{ reminderLeadMinutes: 1.5, escalateAfterMinutes: 0, notifyWithValues: false }, false],
    [{ reminderLeadMinutes: -1, escalateAfterMinutes: 0, notifyWithValues: false }, false],
    [{ reminderLeadMinutes: 60, escalateAfterMinutes: 7 * 24 * 60 + 1, notifyWithValues: false }, false],
    [{ reminderLeadMinutes: '60', escalateAfterMinutes: 0, notifyWithValues: false }, false],
    [{ reminderLeadMinutes: 60, escalateAfterMinutes: 0 }, false],
  ])('settings %j are valid: %s', (settings, valid) => {
    expect(notificationSettingsInput.safeParse(settings).success).toBe(valid);
  });
});

describe('secrets and targets', () => {
  it('makes a Standard Webhooks secret of 32 random bytes, different each time', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it('shows a Slack URL (itself a credential) only in part', () => {
    expect(displayTarget({ kind: 'slack', target: 'https://hooks.slack.com/services/T0/B0/abcdefgh' })).toBe(
      'https://hooks.slack.com/…efgh',
    );
    expect(displayTarget({ kind: 'webhook', target: 'https://hooks.example.com/x' })).toBe(
      'https://hooks.example.com/x',
    );
  });
});
