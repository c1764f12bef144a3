'use client';

import * as ToastPrimitive from '@radix-ui/react-toast';
import type { ComponentPropsWithRef, ReactNode } from 'react';
import { cn, FOCUS_RING } from './cn';

/** Wraps the part of the app that shows toasts, with the (fixed, bottom-right) region they appear in. */
export function ToastProvider({ children }: { children: ReactNode }) {
  return (
    <ToastPrimitive.Provider swipeDirection="right" duration={8_000}>
      {children}
      <ToastPrimitive.Viewport className="fixed bottom-0 right-0 z-50 m-0 flex w-full max-w-sm list-none flex-col gap-2 p-4 outline-none" />
    </ToastPrimitive.Provider>
  );
}

/**
 * One toast: a title, optional words and an optional action (e.g. a link to what just ran). It is
 * announced politely and closes itself; the action must also be reachable elsewhere (`altText`).
 */
export function Toast({ title, description, action, className, ...props }: ComponentPropsWithRef<typeof ToastPrimitive.Root> & { title: ReactNode; description?: ReactNode; action?: { altText: string; node: ReactNode } }) {
  return (
    <ToastPrimitive.Root className={cn('grid grid-cols-[1fr_auto] items-start gap-x-3 rounded-lg border border-zinc-200 bg-white p-3 text-sm shadow-lg dark:border-zinc-800 dark:bg-zinc-900', className)} {...props}>
      <ToastPrimitive.Title className="font-medium">{title}</ToastPrimitive.Title>
      <ToastPrimitive.Close aria-label="Dismiss" className={cn('row-span-2 rounded px-1 text-zinc-600 dark:text-zinc-400', FOCUS_RING)}>
        <span aria-hidden="true">✕</span>
      </ToastPrimitive.Close>
      {description ? <ToastPrimitive.Description className="text-zinc-600 dark:text-zinc-400">{description}</ToastPrimitive.Description> : null}
      {action ? <ToastPrimitive.Action altText={action.altText} asChild>{action.node}</ToastPrimitive.Action> : null}
    </ToastPrimitive.Root>
  );
}
