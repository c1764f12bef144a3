'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { cn } from './ui/cn';

/**
 * `exact`: active on that path only (the Proposals list, whose proposal pages belong to the Queue).
 * `block`: a full-width line (in the phone's navigation sheet).
 */
export function NavLink({
  href,
  label,
  testId,
  exact = false,
  block = false,
}: {
  href: string;
  label: string;
  testId: string;
  exact?: boolean;
  block?: boolean;
}) {
  const pathname = usePathname();
  const active = exact
    ? pathname === href
    : href === '/'
      ? pathname === '/' || pathname.startsWith('/proposals/')
      : pathname.startsWith(href);
  return (
    <Link
      href={href}
      data-testid={testId}
      aria-current={active ? 'page' : undefined}
      className={cn(
        'rounded-md px-3 text-sm font-medium',
        block ? 'block py-2.5' : 'py-1.5',
        active
          ? 'bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900'
          : 'text-zinc-700 hover:bg-zinc-200 dark:text-zinc-300 dark:hover:bg-zinc-800',
      )}
    >
      {label}
    </Link>
  );
}
