import { describe, expect, it } from 'vitest';
import { parseHistoryParams, startOfDay } from './history-filters';
import { exportHref, historySearch } from './history-view';

const parse = (query: string, use: 'page' | 'export' = 'page') => parseHistoryParams(new URLSearchParams(query), use);

describe('parseHistoryParams', () => {
  it.each([
    ['bad tz', 'from=2030-01-01&tz=Mars/Olympus', /tz must be an IANA time zone/],
    ['an offset as tz', 'from=2030-01-01&tz=%2B01:00', /tz must be an IANA time zone/],
    ['from after to', 'from=2030-02-01&to=2030-01-01&tz=UTC', /from \(2030-02-01\) is after to \(2030-01-01\)/],
    ['dates without a zone', 'from=2030-02-01', /tz .* is needed/],
    ['a day that does not exist', 'from=2030-02-30&tz=UTC', /from must be a date like/],
    ['a timestamp as a date', 'to=2030-02-01T10:00:00Z&tz=UTC', /to must be a date like/],
    ['unknown outcome', 'outcome=won', /outcome must be one of approved, rejected/],
    ['unknown event type', 'tab=events&type=proposal.forged', /type must be one of/],
    ['type on the Decisions view', 'type=proposal.created', /type filters the Events view/],
    [
      'an action that is no name',
      'action=launch%20missiles',
      /action must be an action's name, lower snake case like hold_stock or issue_refund/,
    ],
    ['a person that is no id', 'person=alice@acme.test', /person must be a member's id/],
    ['an agent name with a space', 'agent=bad%20bot', /agent must be an agent name/],
    ['overlong q', `q=${'x'.repeat(201)}`, /q must be at most 200 characters/],
    ['empty q', 'q=', /q must not be empty/],
    ['q with a control character', 'q=a%00b', /q must not contain control/],
    ['q with a bidi override', 'q=a%E2%80%AEb', /q must not contain control/],
    ['an unknown parameter', 'sort=asc', /Unknown query parameter: sort/],
    ['a repeated parameter', 'action=hold_stock&action=issue_refund', /action is given more than once/],
    ['an unknown tab', 'tab=all', /tab must be one of decisions, events/],
    ['format on the page', 'format=csv', /format belongs to the export/],
  ])('refuses %s with words', (_why, query, message) => {
    const parsed = parse(query);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.messages.join(' ')).toMatch(message);
  });

  it.each([
    ['no format', '', /format must be csv or jsonl/],
    ['an unknown format', 'format=xlsx', /format must be one of csv, jsonl/],
  ])('the export refuses %s', (_why, query, message) => {
    const parsed = parse(query, 'export');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.messages.join(' ')).toMatch(message);
  });

  it('takes every filter and turns the days into instants in the viewer’s zone, `to` inclusive', () => {
    const parsed = parse(
      'tab=events&person=usr_abc&agent=acme-support-bot&action=issue_refund&outcome=rejected&type=proposal.rejected&from=2030-03-30&to=2030-03-31&tz=Europe/Berlin&q=ord_1842',
    );
    expect(parsed).toMatchObject({ ok: true, view: { tab: 'events', action: 'issue_refund', tz: 'Europe/Berlin' } });
    if (!parsed.ok) return;
    // Berlin is UTC+1 on March 30 and UTC+2 from March 31, 2030 (DST starts that night).
    expect(parsed.filters.since?.toISOString()).toBe('2030-03-29T23:00:00.000Z');
    expect(parsed.filters.until?.toISOString()).toBe('2030-03-31T22:00:00.000Z');
  });

  it('a single day is valid (from = to), and the default tab is decisions', () => {
    const parsed = parse('from=2030-01-01&to=2030-01-01&tz=America/New_York');
    expect(parsed).toMatchObject({ ok: true, view: { tab: 'decisions' } });
    if (parsed.ok) expect(parsed.filters.since?.toISOString()).toBe('2030-01-01T05:00:00.000Z');
  });
});

describe('startOfDay', () => {
  it.each([
    ['2030-06-15', 'UTC', 0, '2030-06-15T00:00:00.000Z'],
    ['2030-06-15', 'Asia/Tokyo', 0, '2030-06-14T15:00:00.000Z'],
    ['2030-12-31', 'Pacific/Auckland', 1, '2030-12-31T11:00:00.000Z'],
    ['2030-11-03', 'America/Los_Angeles', 1, '2030-11-04T08:00:00.000Z'],
  ])('%s in %s (+%d days) starts at %s', (day, tz, offset, expected) => {
    expect(startOfDay(day, tz, offset).toISOString()).toBe(expected);
  });
});

describe('the URL of a view', () => {
  it('leaves out the default tab and empty filters; the export carries the filters and the view they apply to', () => {
    expect(historySearch({ tab: 'decisions' })).toBe('');
    expect(historySearch({ tab: 'events', action: 'hold_stock' })).toBe('?tab=events&action=hold_stock');
    expect(exportHref({ tab: 'events', person: 'usr_a', type: 'proposal.created' }, 'csv')).toBe(
      '/api/v1/audit/events?tab=events&person=usr_a&type=proposal.created&format=csv',
    );
    expect(exportHref({ tab: 'decisions', q: 'refund' }, 'jsonl')).toBe(
      '/api/v1/audit/events?tab=decisions&q=refund&format=jsonl',
    );
  });
});
