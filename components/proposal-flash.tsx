'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useEffect, useSyncExternalStore } from 'react';
import { FOCUS_RING } from './ui/cn';
import { Toast } from './ui/toast';

/**
 * One message for the page this tab navigates to next ("Approved refund … · View"), with a link back when it has one.
 */
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

/**
 * Leaves `text` for the page at `path`, shown once the app navigates there (client-side); `link` points back at what it
 * tells of.
 */
export function leaveFlash(text: string, path = '/', link?: Flash['link']): void {
  setFlash({ text, path, ...(link ? { link } : {}) });
}

/** A toast with a link stays long enough to be read and reached (it also pauses while hovered or focused). */
const FLASH_MS = 12_000;

/**
 * Shows the message left for this page as a toast (announced politely; F8 reaches it from the
 * keyboard); it goes away when dismissed, after a while, or when the reader moves on.
 */
export function ProposalFlash() {
  const pathname = usePathname();
  const current = useSyncExternalStore(
    subscribe,
    () => flash,
    () => null,
  );
  const shown = current?.path === pathname ? current : null;
  useEffect(() => {
    // Moving on from the page it was shown on drops it (it is left for one page, once).
    return () => {
      if (flash?.path === pathname) setFlash(null);
    };
  }, [pathname]);
  if (!shown) return null;
  return (
    <Toast
      type="background"
      duration={FLASH_MS}
      open
      onOpenChange={(open) => {
        if (!open) setFlash(null);
      }}
      data-testid="flash"
      closeTestId="flash-dismiss"
      title={shown.text}
      description={
        shown.link ? (
          <Link
            href={shown.link.href}
            data-testid="flash-link"
            className={
              'rounded font-medium text-blue-800 underline underline-offset-2 dark:text-blue-300 ' + FOCUS_RING
            }
          >
            {shown.link.label}
          </Link>
        ) : undefined
      }
    />
  );
}
