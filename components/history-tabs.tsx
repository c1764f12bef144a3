import Link from 'next/link';

export type HistoryTab = 'decisions' | 'events' | 'oversight' | 'grants';

/** The views on one page, filtered by the URL; the others have a page of their own. */
type FilteredTab = 'decisions' | 'events';

const OWN_PAGES: Record<Exclude<HistoryTab, FilteredTab>, string> = {
  oversight: '/history/oversight',
  grants: '/history/grants',
};

/**
 * History's views: Decisions and Events (one page, `hrefOf` keeps its filters), Oversight and Grants (pages of their
 * own).
 */
export function HistoryTabs({
  current,
  hrefOf = (tab) => `/history?tab=${tab}`,
}: {
  current: HistoryTab;
  hrefOf?: (tab: FilteredTab) => string;
}) {
  const tabs: { tab: HistoryTab; label: string }[] = [
    { tab: 'decisions', label: 'Decisions' },
    { tab: 'events', label: 'Events' },
    { tab: 'oversight', label: 'Oversight' },
    { tab: 'grants', label: 'Grants' },
  ];
  return (
    <nav aria-label="History views" className="flex flex-wrap gap-1">
      {tabs.map(({ tab, label }) => (
        <Link
          key={tab}
          href={tab === 'decisions' || tab === 'events' ? hrefOf(tab) : OWN_PAGES[tab]}
          data-testid={`history-tab-${tab}`}
          aria-current={current === tab ? 'page' : undefined}
          className={
            'rounded-md px-3 py-1.5 text-sm font-medium ' +
            (current === tab
              ? 'bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900'
              : 'text-zinc-700 hover:bg-zinc-200 dark:text-zinc-300 dark:hover:bg-zinc-800')
          }
        >
          {label}
        </Link>
      ))}
    </nav>
  );
}

/** The heading every History view starts with (the section names itself by `history-heading`), its views beside it. */
export function HistoryHeader(props: { current: HistoryTab; hrefOf?: (tab: FilteredTab) => string }) {
  return (
    <div className="flex flex-wrap items-baseline justify-between gap-2">
      <h1 id="history-heading" className="text-xl font-semibold">
        History
      </h1>
      <HistoryTabs {...props} />
    </div>
  );
}
