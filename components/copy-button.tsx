'use client';

import { useState } from 'react';
import { Button } from './ui/button';

/** Copies a long value (a hash, a JWS, a secret, a link); says "copied" once the clipboard took it. */
export function CopyButton({ value, label, testId }: { value: string; label: string; testId: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <>
      <Button
        size="xs"
        data-testid={testId}
        aria-label={label}
        onClick={() => {
          // A refused clipboard (no permission, no focus) leaves it saying "copy": nothing was copied.
          void navigator.clipboard?.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          );
        }}
      >
        {copied ? 'copied' : 'copy'}
      </Button>
      <span role="status" className="sr-only">
        {copied ? 'Copied' : ''}
      </span>
    </>
  );
}
