import { describe, expect, it } from 'vitest';
import { formatMinor, formatMoney, minorDigits, parseMoney } from './money';

describe('parseMoney', () => {
  it.each([
    ['12', 'EUR', 1200],
    ['12.5', 'EUR', 1250],
    ['12.50', 'EUR', 1250],
    ['0.01', 'EUR', 1],
    ['0', 'EUR', 0],
    ['012.30', 'EUR', 1230],
    ['1000', 'JPY', 1000],
    ['0.1', 'USD', 10],
    // Floating point would give 1.1 * 100 = 110.00000000000001 and 4.35 * 100 = 434.99999999999994.
    ['1.10', 'USD', 110],
    ['4.35', 'USD', 435],
    ['1.005', 'BHD', 1005],
    ['999999999999.99', 'EUR', 99_999_999_999_999],
  ])('reads %j %s as %d minor units', (text, currency, minor) => {
    expect(parseMoney(text, currency)).toEqual({ ok: true, minor });
  });

  it.each([
    ['12.345', 'EUR', 'EUR has 2 decimals: 12.345 has 3.'],
    ['12.5', 'JPY', 'JPY has no decimals'],
    ['-1', 'EUR', 'no sign'],
    ['1e3', 'EUR', 'exponent'],
    ['', 'EUR', 'Enter an amount in EUR'],
    [' 12', 'EUR', 'spaces'],
    ['12 ', 'EUR', 'spaces'],
    ['1,000', 'EUR', 'commas'],
    ['12.', 'EUR', 'one decimal point'],
    ['.5', 'EUR', 'one decimal point'],
    ['+5', 'EUR', 'no sign'],
    ['0x10', 'EUR', 'digits'],
    ['１２', 'EUR', 'digits'],
    ['Infinity', 'EUR', 'digits'],
    ['99999999999999.99', 'EUR', 'too large'],
  ])('refuses %j in %s, saying why', (text, currency, words) => {
    const parsed = parseMoney(text, currency);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.message).toContain(words);
  });
});

describe('formatMinor and formatMoney', () => {
  it.each([
    [1500, 'EUR', '15.00'],
    [1, 'EUR', '0.01'],
    [0, 'USD', '0.00'],
    [4999, 'USD', '49.99'],
    [1500, 'JPY', '1500'],
    [1005, 'BHD', '1.005'],
    [-5, 'EUR', '-0.05'],
    [99_999_999_999_999, 'EUR', '999999999999.99'],
  ])('%d %s is %s', (minor, currency, text) => {
    expect(formatMinor(minor, currency)).toBe(text);
    expect(formatMoney(minor, currency)).toBe(`${text} ${currency}`);
    if (minor >= 0) expect(parseMoney(text, currency)).toEqual({ ok: true, minor });
  });

  it('knows each currency’s decimals', () => {
    expect([minorDigits('EUR'), minorDigits('JPY'), minorDigits('BHD')]).toEqual([2, 0, 3]);
  });
});
