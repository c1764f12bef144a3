import type { ComponentPropsWithRef } from 'react';
import { cn } from './cn';

const TONES = {
  neutral: 'bg-zinc-100 text-zinc-800 ring-zinc-300 dark:bg-zinc-800 dark:text-zinc-200 dark:ring-zinc-700',
  info: 'bg-blue-50 text-blue-900 ring-blue-200 dark:bg-blue-950 dark:text-blue-200 dark:ring-blue-800',
  warning: 'bg-amber-50 text-amber-950 ring-amber-300 dark:bg-amber-950 dark:text-amber-100 dark:ring-amber-800',
  danger: 'bg-red-50 text-red-900 ring-red-200 dark:bg-red-950 dark:text-red-200 dark:ring-red-800',
  success: 'bg-green-50 text-green-900 ring-green-200 dark:bg-green-950 dark:text-green-200 dark:ring-green-800',
} as const;

export type BadgeTone = keyof typeof TONES;

/** A small labelled pill: colour is never the only signal, so it always holds words. */
export function Badge({ tone = 'neutral', className, ...props }: ComponentPropsWithRef<'span'> & { tone?: BadgeTone }) {
  return (
    <span
      className={cn(
        'inline-flex shrink-0 items-center gap-1 whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ' +
          'ring-1 ring-inset',
        TONES[tone],
        className,
      )}
      {...props}
    />
  );
}
