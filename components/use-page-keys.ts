'use client';

import { type RefObject, useEffect, useRef } from 'react';

/** Typing in a field (not ticking a box) keeps its keys. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement)
    return true;
  return target instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit'].includes(target.type);
}

/** A sheet, dialog or menu of components/ui (Radix marks it open) is open: page keys rest. */
const OPEN_OVERLAY = '[role="dialog"][data-state="open"], [role="menu"][data-state="open"]';

/**
 * A page's single-letter keys: `onKey` hears a key unless a modifier is held or a dialog is open,
 * and, except Escape, unless the person is typing in a field. Once it listens (after hydration),
 * `ready` gets `data-keys-ready="true"`, so a test knows a key will be heard.
 */
export function usePageKeys(onKey: (event: KeyboardEvent) => void, ready: RefObject<HTMLElement | null>): void {
  const handler = useRef(onKey);
  useEffect(() => {
    handler.current = onKey;
  });
  useEffect(() => {
    const listener = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey || document.querySelector(OPEN_OVERLAY)) return;
      if (event.key !== 'Escape' && isTyping(event.target)) return;
      handler.current(event);
    };
    window.addEventListener('keydown', listener);
    ready.current?.setAttribute('data-keys-ready', 'true');
    return () => window.removeEventListener('keydown', listener);
  }, [ready]);
}
