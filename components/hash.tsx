'use client';

import { useState } from 'react';

/** A payload hash: short, full on hover, with a copy button. */
export function Hash({ value, testId = 'payload-hash' }: { value: string; testId?: string }) {
  const [copied, setCopied] = useState(false);
  const hex = value.replace(/^sha256:/, '');
  const short = `sha256:${hex.slice(0, 8)}…${hex.slice(-4)}`;
  return (
    <span className="inline-flex items-center gap-2">
      <code data-testid={testId} data-full={value} title={value} className="font-mono text-sm">
        {short}
      </code>
      <button
        type="button"
        data-testid={`${testId}-copy`}
        className="rounded border border-zinc-300 px-1.5 text-xs text-zinc-600 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800"
        onClick={() => {
          void navigator.clipboard?.writeText(value).then(() => setCopied(true));
        }}
        aria-label="Copy the full payload hash"
      >
        {copied ? 'copied' : 'copy'}
      </button>
    </span>
  );
}
