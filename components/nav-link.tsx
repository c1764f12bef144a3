'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';

/** `exact`: active on that path only (the Proposals list, whose proposal pages belong to the Queue). */
export function NavLink({ href, label, testId, exact = false }: { href: string; label: string; testId: string; exact?: boolean }) {
  const pathname = usePathname();
  const active = exact ? pathname === href : href === '/' ? pathname === '/' || pathname.startsWith('/proposals/') : pathname.startsWith(href);
  return (
    <Link
      href={href}
      data-testid={testId}
      aria-current={active ? 'page' : undefined}
      className={`rounded-md px-3 py-1.5 text-sm font-medium ${active ? 'bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900' : 'text-zinc-700 hover:bg-zinc-200 dark:text-zinc-300 dark:hover:bg-zinc-800'}`}
    >
      {label}
    </Link>
  );
}
