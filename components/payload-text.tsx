import { Fragment } from 'react';
import { visibleSegments } from '@/lib/text/visible';

type Props = {
  value: string;
  mono?: boolean;
  /** Pretty JSON or a body as received: newlines and tabs stay layout, everything else is marked. */
  multiline?: boolean;
};

/**
 * The one renderer for untrusted text (arguments, bodies as received, evidence, agent names,
 * request ids, reasons): text only, never HTML; it breaks inside a word only when that word cannot fit a line;
 * invisible and direction-changing characters become visible badges; look-alikes of ASCII (Cyrillic а, fullwidth ｏ) are
 * named right after their run; and the run is bidi-isolated, so it cannot reorder what surrounds it.
 */
export function PayloadText({ value, mono = true, multiline = false }: Props) {
  const segments = visibleSegments(value, { multiline });
  return (
    <span dir={mono ? 'ltr' : 'auto'} className={`[unicode-bidi:isolate] ${mono ? 'font-mono break-words' : ''}`}>
      {segments.map((segment, index) =>
        'text' in segment ? (
          segment.text
        ) : 'mark' in segment ? (
          <span
            key={index}
            data-testid="invisible-char"
            className="mx-0.5 rounded bg-red-100 px-1 text-xs text-red-900 dark:bg-red-950 dark:text-red-200"
          >
            ⟦{segment.mark}⟧
          </span>
        ) : (
          <Fragment key={index}>
            {segment.lookalike}
            <span
              data-testid="lookalike-char"
              title={segment.chars.map((char) => `${char.mark} ${char.name}, looks like ${char.looksLike}`).join('; ')}
              className={
                'mx-0.5 whitespace-nowrap rounded bg-red-100 px-1 font-sans text-xs text-red-900 dark:bg-red-950 ' +
                'dark:text-red-200'
              }
            >
              look-alike {segment.chars.map((char) => char.mark).join(' ')}
            </span>
          </Fragment>
        ),
      )}
    </span>
  );
}

/** A multi-line block of untrusted text (canonical JSON, a body as received, a receipt). */
export function PayloadBlock({ value, testId }: { value: string; testId?: string }) {
  return (
    <pre
      data-testid={testId}
      className="mt-2 overflow-x-auto whitespace-pre-wrap rounded bg-zinc-100 p-3 text-xs dark:bg-zinc-800"
    >
      <code>
        <PayloadText value={value} multiline />
      </code>
    </pre>
  );
}
