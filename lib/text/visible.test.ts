import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { PayloadBlock, PayloadText } from '@/components/payload-text';
import { visibleSegments, visibleText } from './visible';

const DIRECTIONAL = [
  '\u202A',
  '\u202B',
  '\u202C',
  '\u202D',
  '\u202E',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200E',
  '\u200F',
  '\u061C',
];
const ZERO_WIDTH = ['\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u00AD'];
const OTHER = ['\u0000', '\u001B', '\u007F', '\u0085', '\u2028', '\u2029', '\uFE0F', '\u{E0041}', '\u3164'];

describe('visibleSegments', () => {
  const named = [...DIRECTIONAL, ...ZERO_WIDTH, ...OTHER].map((ch) => [
    `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`,
    ch,
  ]);
  it.each(named)('marks %s and keeps the text around it', (name, ch) => {
    expect(visibleSegments(`a${ch}b`)).toEqual([{ text: 'a' }, { mark: name }, { text: 'b' }]);
    expect(visibleText(`a${ch}b`)).toBe(`a⟦${name}⟧b`);
  });

  it('keeps printable text, non-ASCII letters included, as one run', () => {
    expect(visibleSegments('Refund 49,99 € — café')).toEqual([{ text: 'Refund 49,99 € — café' }]);
    expect(visibleSegments('')).toEqual([]);
  });

  it('cuts out a run of look-alikes of ASCII and names each character once', () => {
    const a = { mark: 'U+0430', name: 'CYRILLIC SMALL LETTER A', looksLike: 'a' };
    const o = { mark: 'U+043E', name: 'CYRILLIC SMALL LETTER O', looksLike: 'o' };
    expect(visibleSegments('b\u0430tteries')).toEqual([
      { text: 'b' },
      { lookalike: '\u0430', chars: [a] },
      { text: 'tteries' },
    ]);
    expect(visibleSegments('\u043E\u0430\u0430k \u202E')).toEqual([
      { lookalike: '\u043E\u0430\u0430', chars: [o, a] },
      { text: 'k ' },
      { mark: 'U+202E' },
    ]);
    // Plain-text places get the text as it is (the look-alike is named where there is room for a chip).
    expect(visibleText('b\u0430tteries')).toBe('b\u0430tteries');
  });

  it.each([
    'Hold 2 × filter-blue · north',
    'Refund 49,99 € — £40',
    'Remboursé, Müller',
    'Great 😂 ☕',
    '请退还订单款项，谢谢！',
    'Клиент просит вернуть деньги',
  ])('finds no look-alike in %s', (text) => {
    expect(visibleSegments(text)).toEqual([{ text }]);
  });

  it('names a run of more than 30 combining marks by its length instead of stacking it on a letter; a shorter run is just text', () => {
    const run = (n: number) => '\u0301\u0316'.repeat(n / 2);
    expect(visibleSegments(`Damaged${run(80)} on arrival`)).toEqual([
      { text: 'Damaged' },
      { mark: '80 combining marks' },
      { text: ' on arrival' },
    ]);
    expect(visibleSegments(`e${run(30)}`)).toEqual([{ text: `e${run(30)}` }]);
    expect(visibleSegments(`e${run(32)}`)).toEqual([{ text: 'e' }, { mark: '32 combining marks' }]);
    expect(visibleText(`x${run(40)}`)).toBe('x⟦40 combining marks⟧');
    // A mark that is itself invisible (U+034F COMBINING GRAPHEME JOINER) is named, and cuts the run.
    expect(visibleSegments(`e${run(20)}\u034f${run(20)}`)).toEqual([
      { text: `e${run(20)}` },
      { mark: 'U+034F' },
      { text: run(20) },
    ]);
    expect(visibleSegments('café résumé')).toEqual([{ text: 'café résumé' }]);
  });

  it('keeps newlines and tabs as layout only in a multi-line block; a carriage return is always marked', () => {
    expect(visibleSegments('{\n\t"a": 1\r\n}', { multiline: true })).toEqual([
      { text: '{\n\t"a": 1' },
      { mark: 'U+000D' },
      { text: '\n}' },
    ]);
    expect(visibleSegments('a\nb')).toEqual([{ text: 'a' }, { mark: 'U+000A' }, { text: 'b' }]);
  });
});

describe('PayloadText', () => {
  const render = (node: Parameters<typeof renderToStaticMarkup>[0]) => renderToStaticMarkup(node);

  it('never emits a direction-changing or invisible character, and isolates its run', () => {
    const hostile = `{"reason":"refund \u202Egnp.exe\u202C \u2066x\u2069 zero\u200Bwidth"}`;
    for (const html of [
      render(createElement(PayloadText, { value: hostile })),
      render(createElement(PayloadBlock, { value: hostile })),
    ]) {
      for (const ch of [...DIRECTIONAL, ...ZERO_WIDTH]) expect(html).not.toContain(ch);
      for (const name of ['U+202E', 'U+202C', 'U+2066', 'U+2069', 'U+200B']) expect(html).toContain(`⟦${name}⟧`);
      expect(html).toContain('[unicode-bidi:isolate]');
      expect(html).toContain('dir="ltr"');
    }
  });

  it('renders markup as text', () => {
    const html = render(createElement(PayloadText, { value: '<img src=x onerror=alert(1)>' }));
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('keeps the layout of a multi-line block; accented letters are just text', () => {
    const html = render(createElement(PayloadBlock, { value: '{\n  "a": "é"\n}' }));
    expect(html).toContain('{\n  &quot;a&quot;: &quot;é&quot;\n}');
    expect(html).not.toContain('lookalike-char');
    expect(html).not.toContain('U+000A');
  });

  it('names a look-alike of ASCII right after its run, and nothing for ×, € or é', () => {
    const html = render(createElement(PayloadText, { value: 'ord_1842 b\u0430tteries' }));
    expect(html).toContain('b\u0430<span data-testid="lookalike-char"');
    expect(html).toContain('look-alike U+0430</span>tteries');
    expect(html).toContain('title="U+0430 CYRILLIC SMALL LETTER A, looks like a"');
    for (const value of ['Hold 2 × filter-blue', 'Refund 49,99 €', 'café']) {
      expect(render(createElement(PayloadText, { value, mono: false }))).not.toContain('lookalike-char');
    }
  });
});
