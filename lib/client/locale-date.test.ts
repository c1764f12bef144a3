import { describe, expect, it } from 'vitest';
import { dayFormat, formatDay, parseDay } from './locale-date';

describe('days in the viewer’s locale', () => {
  it('knows each locale’s order and separator', () => {
    expect(dayFormat('en-GB').pattern).toBe('dd/mm/yyyy');
    expect(dayFormat('en-US').pattern).toBe('mm/dd/yyyy');
    expect(dayFormat('de-DE').pattern).toBe('dd.mm.yyyy');
    expect(dayFormat('sv-SE').pattern).toBe('yyyy-mm-dd');
  });

  it('shows an ISO day as the locale writes it, and reads it back', () => {
    for (const locale of ['en-GB', 'en-US', 'de-DE', 'sv-SE', 'ja-JP']) {
      const format = dayFormat(locale);
      const shown = formatDay('2030-01-31', format);
      expect(parseDay(shown, format, 'From'), locale).toEqual({ ok: true, iso: '2030-01-31' });
    }
    expect(formatDay('2030-01-31', dayFormat('en-GB'))).toBe('31/01/2030');
    expect(formatDay('', dayFormat('en-GB'))).toBe('');
  });

  it('accepts ISO and single digits, and refuses days that do not exist with the format expected', () => {
    const gb = dayFormat('en-GB');
    expect(parseDay('2030-02-03', gb, 'From')).toEqual({ ok: true, iso: '2030-02-03' });
    expect(parseDay(' 3/2/2030 ', gb, 'From')).toEqual({ ok: true, iso: '2030-02-03' });
    expect(parseDay('3/2/2030', dayFormat('en-US'), 'From')).toEqual({ ok: true, iso: '2030-03-02' });
    expect(parseDay('31/02/2030', gb, 'To')).toEqual({
      ok: false,
      message: 'To must be a date written dd/mm/yyyy (or 2030-01-31); got "31/02/2030".',
    });
    for (const bad of ['02/2030', 'tomorrow', '1/2/30', '1/2/2030/4'])
      expect(parseDay(bad, gb, 'From').ok, bad).toBe(false);
  });
});
