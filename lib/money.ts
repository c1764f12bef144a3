/**
 * Money in minor units (integers), read and written in major units with the currency's own number
 * of decimals. Conversions are string arithmetic, never floating point. Client-safe: pure functions
 * over `Intl`, so the revision form checks an amount the same way the server words it.
 */

/** How many decimals a currency's major unit has (EUR 2, JPY 0, BHD 3). */
export function minorDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** Minor units as a major-unit number without the currency (1500 EUR → "15.00", 1500 JPY → "1500"). */
export function formatMinor(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  const sign = minor < 0 ? '-' : '';
  const text = String(Math.abs(Math.trunc(minor))).padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** Minor units as major units with the currency's own number of decimals ("49.99 USD"). */
export function formatMoney(minor: number, currency: string): string {
  return `${formatMinor(minor, currency)} ${currency}`;
}

export type ParsedMoney = { ok: true; minor: number } | { ok: false; message: string };

const AMOUNT = /^(\d+)(?:\.(\d+))?$/;

/**
 * An amount typed in major units ("12.50") as minor units (1250 for EUR). Only digits with at
 * most one decimal point are read: no sign, exponent, grouping, spaces or more decimals than the
 * currency has; every refusal says why in words.
 */
export function parseMoney(text: string, currency: string): ParsedMoney {
  const digits = minorDigits(currency);
  const example = digits === 0 ? '1200' : `12.${'5'.padEnd(digits, '0')}`;
  if (text === '') return { ok: false, message: `Enter an amount in ${currency}, like ${example}.` };
  const match = AMOUNT.exec(text);
  if (!match)
    return {
      ok: false,
      message:
        `Write the amount with digits${digits === 0 ? ' only' : ' and one decimal point'}, like ${example} (no ` +
        `sign, spaces, commas or exponent).`,
    };
  const [, whole = '', fraction = ''] = match;
  if (fraction.length > digits) {
    return {
      ok: false,
      message:
        digits === 0
          ? `${currency} has no decimals: write a whole number, like ${example}.`
          : `${currency} has ${digits} decimals: ${text} has ${fraction.length}.`,
    };
  }
  const minorText = `${whole}${fraction.padEnd(digits, '0')}`.replace(/^0+(?=\d)/, '');
  if (minorText.length > 15) return { ok: false, message: `${text} ${currency} is too large an amount.` };
  return { ok: true, minor: Number(minorText) };
}

/** ISO 4217 codes this runtime knows: the closed set a currency argument must come from. */
export const CURRENCY_CODES: readonly string[] = Intl.supportedValuesOf('currency');
