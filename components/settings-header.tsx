import Link from 'next/link';
import type { ReactNode } from 'react';

/** The top of a Settings sub-page: the way back, its heading (`id` labels the page's section) and what it is for. */
export function SettingsHeader({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <div className="space-y-1">
      <Link href="/settings" className="text-sm underline underline-offset-2">
        ← Settings
      </Link>
      <h1 id={id} className="text-xl font-semibold">
        {title}
      </h1>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{children}</p>
    </div>
  );
}
