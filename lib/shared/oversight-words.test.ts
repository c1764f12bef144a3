import { describe, expect, it } from 'vitest';
import { alarmWindowStart } from '@/lib/jobs/oversight-alarm';
import { pageChannel } from '@/lib/oversight/views';
import { durationWords, percentWords } from './oversight-words';

describe('oversight in words', () => {
  it.each([
    [null, '—'],
    [850, '850 ms'],
    [4_250, '4.3 s'],
    [185_000, '3 min 5 s'],
    [7_800_000, '2 h 10 min'],
    [2 * 86_400_000 + 3 * 3_600_000, '2 d 3 h'],
  ])('%s ms reads "%s"', (ms, words) => {
    expect(durationWords(ms)).toBe(words);
  });

  it('reads rates to a tenth of a percent', () => {
    expect([percentWords(1), percentWords(0.985), percentWords(2 / 3)]).toEqual(['100 %', '98.5 %', '66.7 %']);
  });
});

describe('the alarm window', () => {
  it.each([
    ['2026-06-08T00:00:00.000Z', '2026-06-08T00:00:00.000Z'],
    ['2026-06-10T12:00:00.000Z', '2026-06-08T00:00:00.000Z'],
    ['2026-06-14T23:59:59.999Z', '2026-06-08T00:00:00.000Z'],
    ['2026-06-15T00:00:00.000Z', '2026-06-15T00:00:00.000Z'],
  ])('%s falls in the week from %s (Monday, UTC)', (at, start) => {
    expect(alarmWindowStart(new Date(at)).toISOString()).toBe(start);
  });
});

describe('the channel of a page view', () => {
  it('is the notification only when the link says so', () => {
    expect([
      pageChannel('notification'),
      pageChannel(undefined),
      pageChannel('queue'),
      pageChannel(['notification']),
    ]).toEqual(['notification', 'page', 'page', 'page']);
  });
});
