import { Refusal } from '@/lib/errors/refusal';

/**
 * A `days` query parameter: absent is `fallback`; otherwise digits for 1–`max`, else 422
 * `invalid_days` naming `days` (what the period is for says `about`, e.g. "The backtest period").
 */
export function daysParam(
  value: string | null,
  { fallback, max, about }: { fallback: number; max: number; about: string },
): number {
  if (value === null) return fallback;
  const days = /^\d{1,3}$/.test(value) ? Number(value) : NaN;
  if (days >= 1 && days <= max) return days;
  const expected = `a whole number of days from 1 to ${max}`;
  const received = /^\d+$/.test(value) ? value : `text of ${[...value].length} characters`;
  return invalidDays(about, expected, received);
}

function invalidDays(about: string, expected: string, received: string): never {
  throw new Refusal('invalid_days', `${about} is not valid: days must be ${expected}.`, {
    issues: [
      {
        field: 'days',
        code: 'out_of_range',
        expected,
        received,
        message: `"days" must be ${expected}; it is ${received}.`,
      },
    ],
  });
}
