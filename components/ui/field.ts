import { cn, FOCUS_RING } from './cn';

/**
 * The look every text field and select shares. `compact`: a filter bar's field, sitting on the
 * page; otherwise a form's full-width field, sitting in a card.
 */
export function fieldClass(compact: boolean, className?: string): string {
  return cn(
    'rounded-md border border-zinc-300 bg-white text-sm disabled:opacity-50 aria-invalid:border-red-600 dark:border-zinc-700 dark:aria-invalid:border-red-400',
    compact ? 'px-2 py-1 dark:bg-zinc-900' : 'block w-full px-3 py-2 dark:bg-zinc-950',
    FOCUS_RING,
    className,
  );
}

export type FieldProps = {
  /** A filter bar's field (inline, small) rather than a form's full-width one. */
  compact?: boolean;
};
