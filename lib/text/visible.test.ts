import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { PayloadBlock, PayloadText } from '@/components/payload-text';
import { visibleSegments, visibleText } from './visible';

const DIRECTIONAL = ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069', '\u200E', '\u200F', '\u061C'];
const ZERO_WIDTH = ['\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u00AD'];
const OTHER = ['\u0000', '\u001B', '\u007F', '\u0085', '\u2028', '\u2029', '\uFE0F', '\u{E0041}', '\u3164'];

describe('visibleSegments', () => {
  const named = [...DIRECTIONAL, ...ZERO_WIDTH, ...OTHER].map((ch) => [`U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`, ch]);
  it.each(named)('marks %s and keeps the text around it', (name, ch) => {
    expect(visibleSegments(`a${ch}b`)).toEqual([{ text: 'a' }, { mark: name }, { text: 'b' }]);
    expect(visibleText(`a${ch}b`)).toBe(`a⟦${name}⟧b`);
  });

  it('keeps printable text, non-ASCII letters included, as one run', () => {
    expect(visibleSegments('Refund 49,99 € — café')).toEqual([{ text: 'Refund 49,99 € — café' }]);
    expect(visibleSegments('')).toEqual([]);
  });

  it('keeps newlines and tabs as layout only in a multi-line block; a carriage return is always marked', () => {
    expect(visibleSegments('{\n\t"a": 1\r\n}', { multiline: true })).toEqual([{ text: '{\n\t"a": 1' }, { mark: 'U+000D' }, { text: '\n}' }]);
    expect(visibleSegments('a\nb')).toEqual([{ text: 'a' }, { mark: 'U+000A' }, { text: 'b' }]);
  });
});

describe('PayloadText', () => {
  const render = (node: Parameters<typeof renderToStaticMarkup>[0]) => renderToStaticMarkup(node);

  it('never emits a direction-changing or invisible character, and isolates its run', () => {
    const hostile = `{"reason":"refund \u202Egnp.exe\u202C \u2066x\u2069 zero\u200Bwidth"}`;
    for (const html of [render(createElement(PayloadText, { value: hostile })), render(createElement(PayloadBlock, { value: hostile }))]) {
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

  it('keeps the layout of a multi-line block and flags non-ASCII text', () => {
    const html = render(createElement(PayloadBlock, { value: '{\n  "a": "é"\n}' }));
    expect(html).toContain('{\n  &quot;a&quot;: &quot;é&quot;\n}');
    expect(html).toContain('non-ASCII');
    expect(html).not.toContain('U+000A');
  });
});
