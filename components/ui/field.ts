import { cn, FOCUS_RING } from './cn';

/** A width among the caller's classes (`w-32`, `sm:w-48`): it replaces the form field's full width. */
const OWN_WIDTH = /(^|\s)([a-z0-9]+:)*w-/;

/**
 * The look every text field and select shares. `compact`: a filter bar's field, sitting on the
 * page; otherwise a form's field, sitting in a card: full width unless the caller gives a width
 * (classes are only joined, so two widths would be decided by the stylesheet's order, not by intent).
 */
export function fieldClass(compact: boolean, className?: string): string {
  return cn(
    'rounded-md border border-zinc-300 bg-white text-sm disabled:opacity-50 aria-invalid:border-red-600 ' +
      'dark:border-zinc-700 dark:aria-invalid:border-red-400',
    compact ? 'px-2 py-1 dark:bg-zinc-900' : 'block px-3 py-2 dark:bg-zinc-950',
    !compact && !OWN_WIDTH.test(className ?? '') && 'w-full',
    FOCUS_RING,
    className,
  );
}

export type FieldProps = {
  /** A filter bar's field (inline, small) rather than a form's full-width one. */
  compact?: boolean;
};
