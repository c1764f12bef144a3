'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useEffect, useSyncExternalStore } from 'react';

/** One message for the page this tab navigates to next ("Approved refund … · View"), with a link back when it has one. */
type Flash = { text: string; path: string; link?: { href: string; label: string } };

let flash: Flash | null = null;
const listeners = new Set<() => void>();

function setFlash(next: Flash | null): void {
  flash = next;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Leaves `text` for the page at `path`, shown once the app navigates there (client-side); `link` points back at what it tells of. */
export function leaveFlash(text: string, path = '/', link?: Flash['link']): void {
  setFlash({ text, path, ...(link ? { link } : {}) });
}

/** Shows the message left for this page; it goes away when dismissed or when the reader moves on. */
export function ProposalFlash() {
  const pathname = usePathname();
  const current = useSyncExternalStore(subscribe, () => flash, () => null);
  const shown = current?.path === pathname ? current : null;
  useEffect(() => {
    // Moving on from the page it was shown on drops it (it is left for one page, once).
    return () => {
      if (flash?.path === pathname) setFlash(null);
    };
  }, [pathname]);
  if (!shown) return null;
  return (
    <div role="status" data-testid="flash" className="mb-4 flex items-start justify-between gap-3 rounded-lg border border-green-300 bg-green-50 p-3 text-sm text-green-900 dark:border-green-800 dark:bg-green-950 dark:text-green-200">
      <span>
        {shown.text}
        {shown.link ? (
          <>
            {' · '}
            <Link href={shown.link.href} data-testid="flash-link" className="font-medium underline underline-offset-2 focus-visible:outline-2 focus-visible:outline-blue-600">{shown.link.label}</Link>
          </>
        ) : null}
      </span>
      <button type="button" data-testid="flash-dismiss" onClick={() => setFlash(null)} className="underline focus-visible:outline-2 focus-visible:outline-blue-600">Dismiss</button>
    </div>
  );
}
