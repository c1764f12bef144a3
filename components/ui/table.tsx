import type { ReactNode } from 'react';

/**
 * The dense table used by History and Settings. With `cards`, it becomes one card per row below
 * `md` (each cell a labelled line, see CardCell), so nothing needs sideways scrolling at 375 px.
 */
export function Table({ head, children, testId, cards = false }: { head: readonly string[]; children: ReactNode; testId: string; cards?: boolean }) {
  return (
    <div className={`${cards ? 'md:overflow-x-auto' : 'overflow-x-auto'} rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900`}>
      <table className={`w-full text-left text-sm ${cards ? 'block md:table' : ''}`} data-testid={testId}>
        <thead className={`bg-zinc-100 text-xs uppercase tracking-wide text-zinc-600 dark:bg-zinc-800 dark:text-zinc-400 ${cards ? 'hidden md:table-header-group' : ''}`}>
          <tr>{head.map((h) => <th key={h} scope="col" className="px-3 py-2 font-medium">{h}</th>)}</tr>
        </thead>
        <tbody className={`divide-y divide-zinc-100 dark:divide-zinc-800 ${cards ? 'block md:table-row-group' : ''}`}>{children}</tbody>
      </table>
    </div>
  );
}

export function Cell({ children, mono = false }: { children: ReactNode; mono?: boolean }) {
  return <td className={`px-3 py-2 align-top ${mono ? 'font-mono text-xs' : ''}`}>{children}</td>;
}

/** A row of a `cards` table. */
export const CARD_ROW = 'block py-2 md:table-row md:py-0';

/** A cell of a `cards` table: a table cell from `md` up; below, a labelled line of its row's card. */
export function CardCell({ label, children, mono = false, wide = false }: { label: string; children: ReactNode; mono?: boolean; wide?: boolean }) {
  return (
    <td className={`flex gap-3 px-3 py-1 align-top md:table-cell md:py-2 ${mono ? 'font-mono text-xs' : ''} ${wide ? 'md:min-w-64' : ''}`}>
      <span className="w-24 shrink-0 font-sans text-xs uppercase tracking-wide text-zinc-500 md:hidden">{label}</span>
      <span className="min-w-0 break-words">{children}</span>
    </td>
  );
}
