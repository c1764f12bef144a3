import type { ReactNode } from 'react';
import { cn } from './cn';

/** A column: its heading, and whether it holds numbers (right-aligned) or needs no visible heading (a row's action). */
export type Column = string | { label: string; numeric?: boolean; hidden?: boolean };

/**
 * The dense table used by History, Settings, deliveries and measurements. With `cards`, it becomes
 * one card per row below `md` (each cell a labelled line, see CardCell), so nothing needs sideways
 * scrolling at 375 px. `className` goes on the <table> (a `min-w-…` that scrolls inside the frame).
 */
export function Table({
  head,
  children,
  testId,
  caption,
  className,
  cards = false,
}: {
  head: readonly Column[];
  children: ReactNode;
  testId?: string;
  caption?: string;
  className?: string;
  cards?: boolean;
}) {
  return (
    <div
      className={
        `${cards ? 'md:overflow-x-auto' : 'overflow-x-auto'} rounded-lg border border-zinc-200 bg-white ` +
        `dark:border-zinc-800 dark:bg-zinc-900`
      }
    >
      <table className={cn('w-full text-left text-sm', cards && 'block md:table', className)} data-testid={testId}>
        {caption ? <caption className="sr-only">{caption}</caption> : null}
        <thead
          className={
            `bg-zinc-100 text-xs uppercase tracking-wide text-zinc-600 dark:bg-zinc-800 ` +
            `dark:text-zinc-400 ${cards ? 'hidden md:table-header-group' : ''}`
          }
        >
          <tr>
            {head.map((column, index) => {
              const {
                label,
                numeric = false,
                hidden = false,
              } = typeof column === 'string' ? { label: column } : column;
              return (
                <th
                  key={`${index}-${label}`}
                  scope="col"
                  className={cn('px-3 py-2 font-medium', numeric && 'text-right')}
                >
                  {hidden ? <span className="sr-only">{label}</span> : label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody className={`divide-y divide-zinc-100 dark:divide-zinc-800 ${cards ? 'block md:table-row-group' : ''}`}>
          {children}
        </tbody>
      </table>
    </div>
  );
}

export function Cell({ children, mono = false }: { children: ReactNode; mono?: boolean }) {
  return <td className={`px-3 py-2 align-top ${mono ? 'font-mono text-xs' : ''}`}>{children}</td>;
}

/** A row of a `cards` table. */
export const CARD_ROW = 'block py-2 md:table-row md:py-0';

/**
 * A cell of a `cards` table: a table cell from `md` up; below, a labelled line of its row's card
 * (none when it holds nothing, e.g. no action for this row).
 */
export function CardCell({
  label,
  children,
  mono = false,
  wide = false,
}: {
  label: string;
  children: ReactNode;
  mono?: boolean;
  wide?: boolean;
}) {
  return (
    <td
      className={
        `${children == null ? 'hidden' : 'flex'} gap-3 px-3 py-1 align-top md:table-cell ` +
        `md:py-2 ${mono ? 'font-mono text-xs' : ''} ${wide ? 'md:min-w-64' : ''}`
      }
    >
      <span className="w-24 shrink-0 font-sans text-xs uppercase tracking-wide text-zinc-500 md:hidden">{label}</span>
      <span className="min-w-0 break-words">{children}</span>
    </td>
  );
}

/**
 * A name → value table (a payload's arguments): each row's name is its row header, so a screen
 * reader says "amountMinor, 150.00 EUR". `caption` names it for screen readers.
 */
export function PropertyTable({
  children,
  caption,
  testId,
}: {
  children: ReactNode;
  caption?: string;
  testId?: string;
}) {
  return (
    <table className="w-full text-sm" data-testid={testId}>
      {caption ? <caption className="sr-only">{caption}</caption> : null}
      <tbody>{children}</tbody>
    </table>
  );
}

/** One row of a PropertyTable; `dense`: the preview pane's tighter, unruled rows. */
export function PropertyRow({
  name,
  children,
  dense = false,
  testId,
  valueTestId,
}: {
  name: string;
  children: ReactNode;
  dense?: boolean;
  testId?: string;
  valueTestId?: string;
}) {
  return (
    <tr className={cn('align-top', !dense && 'border-t border-zinc-100 dark:border-zinc-800')} data-testid={testId}>
      <th
        scope="row"
        className={cn(
          'text-left font-mono font-normal text-zinc-600 dark:text-zinc-400',
          dense ? 'py-0.5 pr-3 text-xs' : 'py-1.5 pr-4 text-sm',
        )}
      >
        {name}
      </th>
      <td className={cn('break-words', dense ? 'py-0.5' : 'py-1.5')} data-testid={valueTestId}>
        {children}
      </td>
    </tr>
  );
}
