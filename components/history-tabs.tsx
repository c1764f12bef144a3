import Link from 'next/link';

export type HistoryTab = 'decisions' | 'events' | 'oversight';

/** History's views: Decisions and Events (one page, filtered by the URL) and Oversight (its own page). */
export function HistoryTabs({ current, hrefOf }: { current: HistoryTab; hrefOf: (tab: HistoryTab) => string }) {
  const tabs: { tab: HistoryTab; label: string }[] = [
    { tab: 'decisions', label: 'Decisions' },
    { tab: 'events', label: 'Events' },
    { tab: 'oversight', label: 'Oversight' },
  ];
  return (
    <nav aria-label="History views" className="flex gap-1">
      {tabs.map(({ tab, label }) => (
        <Link
          key={tab}
          href={hrefOf(tab)}
          data-testid={`history-tab-${tab}`}
          aria-current={current === tab ? 'page' : undefined}
          className={`rounded-md px-3 py-1.5 text-sm font-medium ${current === tab ? 'bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900' : 'text-zinc-700 hover:bg-zinc-200 dark:text-zinc-300 dark:hover:bg-zinc-800'}`}
        >
          {label}
        </Link>
      ))}
    </nav>
  );
}
