/** Minor units as major units with the currency's own number of decimals ("49.99 USD"). */
export function formatMoney(minor: number, currency: string): string {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  return `${(minor / 10 ** digits).toFixed(digits)} ${currency}`;
}

/** ISO 4217 codes this runtime knows: the closed set a currency argument must come from. */
export const CURRENCY_CODES: readonly string[] = Intl.supportedValuesOf('currency');
