import { hasNonAscii, visibleSegments } from '@/lib/text/visible';

type Props = {
  value: string;
  mono?: boolean;
  /** Our own sentences use × and ·: summaries pass false; argument values keep the flag. */
  flagNonAscii?: boolean;
  /** Pretty JSON or a body as received: newlines and tabs stay layout, everything else is marked. */
  multiline?: boolean;
};

/**
 * The one renderer for untrusted text (arguments, bodies as received, evidence, agent names,
 * request ids, reasons): text only, never HTML; invisible and direction-changing characters
 * become visible badges; and the run is bidi-isolated, so it cannot reorder what surrounds it.
 */
export function PayloadText({ value, mono = true, flagNonAscii = true, multiline = false }: Props) {
  const segments = visibleSegments(value, { multiline });
  return (
    <span dir={mono ? 'ltr' : 'auto'} className={`[unicode-bidi:isolate] ${mono ? 'font-mono break-all' : ''}`}>
      {segments.map((segment, index) =>
        'text' in segment ? (
          segment.text
        ) : (
          <span key={index} data-testid="invisible-char" className="mx-0.5 rounded bg-red-100 px-1 text-xs text-red-900 dark:bg-red-950 dark:text-red-200">
            ⟦{segment.mark}⟧
          </span>
        ),
      )}
      {flagNonAscii && hasNonAscii(value) ? (
        <span data-testid="non-ascii-flag" className="ml-2 whitespace-nowrap rounded bg-amber-100 px-1 font-sans text-xs text-amber-900 dark:bg-amber-950 dark:text-amber-200">non-ASCII</span>
      ) : null}
    </span>
  );
}

/** A multi-line block of untrusted text (canonical JSON, a body as received, a receipt). */
export function PayloadBlock({ value, testId }: { value: string; testId?: string }) {
  return (
    <pre data-testid={testId} className="mt-2 overflow-x-auto whitespace-pre-wrap rounded bg-zinc-100 p-3 text-xs dark:bg-zinc-800">
      <code>
        <PayloadText value={value} multiline />
      </code>
    </pre>
  );
}
