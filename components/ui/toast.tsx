'use client';

import * as ToastPrimitive from '@radix-ui/react-toast';
import type { ComponentPropsWithRef, ReactNode } from 'react';
import { cn, FOCUS_RING } from './cn';

/**
 * Wraps the part of the app that shows toasts, with the fixed region they appear in: bottom-right
 * on a wide screen, at the top on a phone (where the decision buttons hold the bottom). F8 reaches it.
 */
export function ToastProvider({ children }: { children: ReactNode }) {
  return (
    <ToastPrimitive.Provider swipeDirection="right" duration={8_000}>
      {children}
      <ToastPrimitive.Viewport
        className={
          'fixed right-0 top-0 z-50 md:bottom-0 md:top-auto m-0 flex w-full max-w-sm list-none flex-col gap-2 p-4 ' +
          'outline-none'
        }
      />
    </ToastPrimitive.Provider>
  );
}

/**
 * One toast: a title, optional words (which may hold a link, e.g. to what just ran) and an optional
 * action (a button; it must also be reachable elsewhere, `altText`). It is announced (politely with
 * `type="background"`) and closes itself after its duration, paused while hovered or focused.
 */
export function Toast({
  title,
  description,
  action,
  closeTestId,
  className,
  ...props
}: ComponentPropsWithRef<typeof ToastPrimitive.Root> & {
  title: ReactNode;
  description?: ReactNode;
  action?: { altText: string; node: ReactNode };
  closeTestId?: string;
}) {
  return (
    <ToastPrimitive.Root
      className={cn(
        'grid grid-cols-[1fr_auto] items-start gap-x-3 gap-y-1 rounded-lg border border-zinc-200 bg-white p-3 ' +
          'text-sm shadow-lg dark:border-zinc-800 dark:bg-zinc-900',
        className,
      )}
      {...props}
    >
      <ToastPrimitive.Title className="col-start-1 font-medium">{title}</ToastPrimitive.Title>
      {description ? (
        <ToastPrimitive.Description className="col-start-1 text-zinc-600 dark:text-zinc-400">
          {description}
        </ToastPrimitive.Description>
      ) : null}
      {action ? (
        <ToastPrimitive.Action altText={action.altText} asChild>
          {action.node}
        </ToastPrimitive.Action>
      ) : null}
      {/* Last in reading and Tab order (after what the toast says and offers), drawn top-right. */}
      <ToastPrimitive.Close
        aria-label="Dismiss"
        data-testid={closeTestId}
        className={cn('col-start-2 row-span-3 row-start-1 rounded px-1 text-zinc-600 dark:text-zinc-400', FOCUS_RING)}
      >
        <span aria-hidden="true">✕</span>
      </ToastPrimitive.Close>
    </ToastPrimitive.Root>
  );
}
