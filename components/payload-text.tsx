/**
 * Renders untrusted text inertly, making invisible and direction-changing characters visible as
 * badges (⟦U+200B⟧) so what the operator reads is what will run.
 */
const INVISIBLE_RANGES: [number, number][] = [
  [0x0000, 0x001f], [0x007f, 0x009f], [0x00ad, 0x00ad], [0x061c, 0x061c], [0x115f, 0x1160], [0x17b4, 0x17b5],
  [0x180e, 0x180e], [0x200b, 0x200f], [0x202a, 0x202e], [0x2060, 0x206f], [0x3164, 0x3164], [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff], [0xffa0, 0xffa0], [0xfff0, 0xfffb], [0xe0000, 0xe007f],
];

export function isInvisible(codePoint: number): boolean {
  return INVISIBLE_RANGES.some(([low, high]) => codePoint >= low && codePoint <= high);
}

export function PayloadText({ value, mono = true, flagNonAscii = true }: { value: string; mono?: boolean; flagNonAscii?: boolean }) {
  const parts: React.ReactNode[] = [];
  let plain = '';
  let index = 0;
  for (const ch of value) {
    if (isInvisible(ch.codePointAt(0)!)) {
      if (plain) parts.push(plain);
      plain = '';
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      parts.push(
        <span key={index} data-testid="invisible-char" className="mx-0.5 rounded bg-red-100 px-1 text-xs text-red-900 dark:bg-red-950 dark:text-red-200">
          ⟦U+{code}⟧
        </span>,
      );
    } else {
      plain += ch;
    }
    index++;
  }
  if (plain) parts.push(plain);
  // Our own sentences use × and ·: summaries pass flagNonAscii={false}; argument values keep the flag.
  const nonAscii = flagNonAscii && [...value].some((ch) => ch.codePointAt(0)! > 0x7e);
  return (
    <span className={mono ? 'font-mono break-all' : undefined}>
      {parts}
      {nonAscii ? <span data-testid="non-ascii-flag" className="ml-2 whitespace-nowrap rounded bg-amber-100 px-1 font-sans text-xs text-amber-900 dark:bg-amber-950 dark:text-amber-200">non-ASCII</span> : null}
    </span>
  );
}
