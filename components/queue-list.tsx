'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useState } from 'react';
import type { QueuePage } from '@/lib/proposals/queue';
import { PayloadText } from './payload-text';
import { humanDuration, relativeTime } from './time';

async function fetchQueue(tenantId: string): Promise<QueuePage> {
  const response = await fetch(`/api/v1/queue?tenant=${encodeURIComponent(tenantId)}`, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`The queue could not be loaded (HTTP ${response.status}).`);
  return (await response.json()) as QueuePage;
}

export function QueueList({ tenantId, initial }: { tenantId: string; initial: QueuePage }) {
  const router = useRouter();
  const { data, error } = useQuery({
    queryKey: ['queue', tenantId],
    queryFn: () => fetchQueue(tenantId),
    initialData: initial,
    refetchInterval: 5_000,
  });
  const [cursor, setCursor] = useState(0);
  const items = data.items;

  useEffect(() => {
    document.title = items.length > 0 ? `(${items.length}) Queue · Countersign` : 'Queue · Countersign';
  }, [items.length]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement || event.metaKey || event.ctrlKey) return;
      if (event.key === 'j') setCursor((c) => Math.min(c + 1, Math.max(items.length - 1, 0)));
      if (event.key === 'k') setCursor((c) => Math.max(c - 1, 0));
      if (event.key === 'Enter' && items[cursor]) router.push(`/proposals/${items[cursor].id}`);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [items, cursor, router]);

  if (items.length === 0) {
    return (
      <div data-testid="queue-empty" className="rounded-lg border border-dashed border-zinc-300 p-10 text-center dark:border-zinc-700">
        <p className="text-lg font-medium">Nothing is waiting for you.</p>
        <p className="mt-2 text-sm text-zinc-500">
          Agents send proposals to <code className="font-mono">POST /api/v1/proposals</code> with their key; see
          “Connect an agent” in the README.
        </p>
      </div>
    );
  }

  const now = new Date();
  return (
    <div>
      {error ? <p role="status" className="mb-2 text-sm text-red-700 dark:text-red-300">{error.message} Showing the last loaded list.</p> : null}
      <ul data-testid="queue-list" className="divide-y divide-zinc-200 overflow-hidden rounded-lg border border-zinc-200 bg-white dark:divide-zinc-800 dark:border-zinc-800 dark:bg-zinc-900">
        {items.map((item, index) => (
          <li key={item.id} data-testid="queue-item" data-proposal-id={item.id} className={index === cursor ? 'bg-blue-50 dark:bg-blue-950/40' : ''}>
            <Link href={`/proposals/${item.id}`} className="grid grid-cols-1 gap-1 px-4 py-3 sm:grid-cols-[1fr_auto] sm:items-center" data-testid="queue-item-link">
              <span className="flex min-w-0 items-center gap-2">
                <span className="rounded bg-amber-100 px-1.5 text-xs font-medium text-amber-900 dark:bg-amber-950 dark:text-amber-200">{item.risk} risk</span>
                <span className="truncate font-medium"><PayloadText value={item.summary} mono={false} /></span>
              </span>
              <span className="flex flex-wrap gap-x-4 text-sm text-zinc-500">
                <span>{item.agent}</span>
                <span data-testid="queue-item-quorum">{item.approvals.have} of {item.approvals.need}</span>
                <span title={`expires ${item.expiresAt}`}>{humanDuration(new Date(item.expiresAt).getTime() - now.getTime())} left</span>
                <span title={item.createdAt} suppressHydrationWarning>{relativeTime(new Date(item.createdAt), now)}</span>
              </span>
            </Link>
          </li>
        ))}
      </ul>
      <p className="mt-3 text-xs text-zinc-500">j / k move · enter opens</p>
    </div>
  );
}
