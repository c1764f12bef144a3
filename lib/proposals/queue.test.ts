import { describe, expect, it } from 'vitest';
import { countText, needsLook } from '@/lib/shared/queue-view';
import { decodeCursor, encodeCursor } from './list-cursor';
import { parseQueueParams, queueViewFromSearch, queueViewSearch } from './queue';

const parse = (search: string) => parseQueueParams(new URLSearchParams(search));

describe('queue parameters', () => {
  it('defaults to expiring first and accepts every known filter', () => {
    expect(parse('')).toEqual({ ok: true, params: { group: 'needs-you', sort: 'expiring' } });
    expect(parse('tenant=acme&action=issue_refund&agent=acme-support-bot&risk=high&sort=newest')).toEqual({
      ok: true,
      params: {
        tenant: 'acme',
        group: 'needs-you',
        action: 'issue_refund',
        agent: 'acme-support-bot',
        risk: 'high',
        sort: 'newest',
      },
    });
  });

  it('refuses unknown parameters and values with words that name them', () => {
    const cases: [string, RegExp][] = [
      ['sort=cheapest', /sort must be one of expiring, newest, oldest; got "cheapest"/],
      ['group=mine', /group must be one of needs-you, waiting, all; got "mine"/],
      ['risk=extreme', /risk must be one of low, medium, high; got "extreme"/],
      ['action=Delete-Everything', /action must be an action's name, lower snake case .*; got "Delete-Everything"/],
      ['agent=', /agent must not be empty/],
      ['page=2', /Unknown query parameter: page/],
      ['risk=low&risk=high', /risk is given more than once/],
      ['cursor=bm9wZQ', /cursor is not one this queue returned/],
    ];
    for (const [search, message] of cases) {
      const parsed = parse(search);
      expect(parsed.ok, search).toBe(false);
      if (!parsed.ok) expect(parsed.messages.join(' ')).toMatch(message);
    }
  });

  it('round-trips a cursor and refuses one from another sort', () => {
    const cursor = { sort: 'newest' as const, at: '2030-01-01T10:00:00.123456Z', id: 'prp_1' };
    const raw = encodeCursor(cursor);
    expect(decodeCursor(raw)).toEqual(cursor);
    expect(parse(`sort=newest&cursor=${raw}`)).toEqual({
      ok: true,
      params: { group: 'needs-you', sort: 'newest', cursor },
    });
    const other = parse(`sort=oldest&cursor=${raw}`);
    expect(other.ok).toBe(false);
    if (!other.ok) expect(other.messages[0]).toMatch(/belongs to sort "newest", not "oldest"/);
    expect(
      decodeCursor(Buffer.from(JSON.stringify(['newest', '2030-01-01', 'x'])).toString('base64url')),
    ).toBeUndefined();
  });

  it('refuses crafted cursors before they reach a query', () => {
    const crafted = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const cases: [string, string][] = [
      ['impossible date', crafted(['newest', '9999-99-99T99:99:99.999999Z', 'prp_abc'])],
      ['day that does not exist', crafted(['newest', '2030-02-30T10:00:00.000000Z', 'prp_abc'])],
      ['year zero', crafted(['newest', '0000-01-01T00:00:00.000000Z', 'prp_abc'])],
      ['beyond JavaScript dates', crafted(['newest', '+275760-09-13T00:00:00.000000Z', 'prp_abc'])],
      ['NUL in the id', crafted(['newest', '2030-01-01T10:00:00.000000Z', 'prp_\u0000'])],
      ['id of another shape', crafted(['newest', '2030-01-01T10:00:00.000000Z', "x' or 1=1 --"])],
      ['id not a string', crafted(['newest', '2030-01-01T10:00:00.000000Z', 7])],
      ['not base64url JSON', '%%%'],
    ];
    for (const [why, cursor] of cases) {
      expect(decodeCursor(cursor), why).toBeUndefined();
      const parsed = parse(`sort=newest&cursor=${encodeURIComponent(cursor)}`);
      expect(parsed, why).toEqual({
        ok: false,
        messages: ['cursor is not one this queue returned; start again without it.'],
      });
    }
  });

  it('refuses an agent filter that is not an agent name', () => {
    for (const agent of ['\u0000', 'bot\u202E', 'a b', 'x'.repeat(65)]) {
      const parsed = parse(new URLSearchParams({ agent }).toString());
      expect(parsed.ok, JSON.stringify(agent)).toBe(false);
    }
  });

  it('gives pages the valid part of the URL and defaults for the rest', () => {
    expect(
      queueViewFromSearch({ sort: 'bogus', risk: 'high', action: 'No Pe', agent: ['a', 'b'], group: 'mine' }),
    ).toEqual({ group: 'needs-you', sort: 'expiring', risk: 'high' });
    expect(
      queueViewFromSearch({ sort: 'oldest', action: 'hold_stock', agent: 'acme-support-bot', group: 'waiting' }),
    ).toEqual({ group: 'waiting', sort: 'oldest', action: 'hold_stock', agent: 'acme-support-bot' });
    expect(queueViewSearch({ group: 'needs-you', sort: 'expiring' })).toBe('');
    expect(queueViewSearch({ group: 'all', sort: 'newest', risk: 'high', agent: 'a b' })).toBe(
      '?group=all&agent=a+b&risk=high&sort=newest',
    );
  });
});

describe('which items stop for a look before approving', () => {
  const flag = {
    kind: 'suspicious_evidence' as const,
    label: 'Suspicious evidence',
    detail: 'ticket_message_74 addresses the agent',
  };
  const one = { have: 0, need: 1 };
  const cases: [string, Parameters<typeof needsLook>[0], boolean][] = [
    ['low risk, no flags, unchanged', { risk: 'low', flags: [], approvals: one, changedSinceProposed: null }, false],
    ['medium risk', { risk: 'medium', flags: [], approvals: one, changedSinceProposed: null }, true],
    ['high risk', { risk: 'high', flags: [], approvals: one, changedSinceProposed: null }, true],
    ['a flag on a low-risk item', { risk: 'low', flags: [flag], approvals: one, changedSinceProposed: null }, true],
    [
      'low risk but two approvers needed',
      { risk: 'low', flags: [], approvals: { have: 0, need: 2 }, changedSinceProposed: null },
      true,
    ],
    [
      'changed since proposed',
      { risk: 'low', flags: [], approvals: one, changedSinceProposed: 'order balance changed from 50.00 to 40.00 USD' },
      true,
    ],
  ];
  it.each(cases)('%s', (_why, item, expected) => expect(needsLook(item)).toBe(expected));
});

describe('a count as people read it', () => {
  it('is the number when exact, and says "at least" with a plus past what the queue counts', () => {
    expect(countText(0, true)).toBe('0');
    expect(countText(42, true)).toBe('42');
    expect(countText(1000, false)).toBe('1000+');
  });
});
