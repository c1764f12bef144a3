import { describe, expect, it } from 'vitest';
import { newId } from '@/lib/ids';
import { attemptsCursorFromSearch } from '@/lib/intake/attempts';
import { isCursorInstant, parseSequence } from './fields';

describe('isCursorInstant', () => {
  it.each([
    '2030-01-01T10:00:00.123456Z',
    '2030-01-01T10:00:00.123Z',
    '2030-01-01T10:00:00Z',
    '2024-02-29T23:59:59.999999Z',
    '1970-01-01T00:00:00.000000Z',
    '9999-12-31T23:59:59.999999Z',
  ])('accepts %s', (value) => {
    expect(isCursorInstant(value)).toBe(true);
  });

  it.each([
    ['beyond JavaScript dates', '+275760-09-13T00:00:00.000Z'],
    ['a negative year', '-000001-01-01T00:00:00.000Z'],
    ['year zero (PostgreSQL has none)', '0000-01-01T00:00:00.000000Z'],
    ['before the range', '1969-12-31T23:59:59.999999Z'],
    ['a month that does not exist', '2030-13-01T10:00:00.000000Z'],
    ['month zero', '2030-00-10T10:00:00.000000Z'],
    ['a day that does not exist', '2030-02-30T10:00:00.000000Z'],
    ['February 29 of a common year', '2023-02-29T10:00:00.000000Z'],
    ['day zero', '2030-01-00T10:00:00.000000Z'],
    ['hour 24', '2030-01-01T24:00:00.000000Z'],
    ['minute 60', '2030-01-01T10:60:00.000000Z'],
    ['a leap second', '2030-06-30T23:59:60.000000Z'],
    ['nonsense digits', '9999-99-99T99:99:99.999999Z'],
    ['seven fraction digits', '2030-01-01T10:00:00.1234567Z'],
    ['an offset instead of Z', '2030-01-01T10:00:00.000+01:00'],
    ['a date only', '2030-01-01'],
    ['what Date.parse also takes', 'Tue Jan 01 2030'],
    ['a number', '1'],
    ['empty', ''],
    ['a NUL byte', '2030-01-01T10:00:00.000000Z\u0000'],
  ])('refuses %s', (_why, value) => {
    expect(isCursorInstant(value)).toBe(false);
  });
});

describe('parseSequence', () => {
  it.each([
    ['1', 1],
    ['42', 42],
    ['999999999999999', 999999999999999],
    [undefined, undefined],
    ['', undefined],
    ['0', undefined],
    ['-1', undefined],
    ['01', undefined],
    ['1e3', undefined],
    ['1.5', undefined],
    ['9999999999999999', undefined],
  ])('%j → %j', (value, expected) => {
    expect(parseSequence(value)).toBe(expected);
  });
});

describe('attemptsCursorFromSearch', () => {
  const id = newId('att');
  it('keeps a cursor the page wrote', () => {
    expect(attemptsCursorFromSearch({ before: '2030-01-01T10:00:00.123Z', id })).toEqual({
      createdAt: '2030-01-01T10:00:00.123Z',
      id,
    });
  });

  it.each([
    ['an impossible date', { before: '+275760-09-13T00:00:00.000Z', id }],
    ['a date Date.parse takes but PostgreSQL would not', { before: 'Tue Jan 01 2030', id }],
    ['a crafted id', { before: '2030-01-01T10:00:00.123Z', id: 'att_\u0000' }],
    ['a repeated parameter', { before: ['2030-01-01T10:00:00.123Z', '2030-01-02T10:00:00.123Z'], id }],
    ['no id', { before: '2030-01-01T10:00:00.123Z' }],
    ['no before', { id }],
  ])('falls back to the first page for %s', (_why, search) => {
    expect(attemptsCursorFromSearch(search)).toBeUndefined();
  });
});
