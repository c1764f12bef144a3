'use client';

import * as DialogPrimitive from '@radix-ui/react-dialog';
import type { ComponentPropsWithRef } from 'react';
import { cn, FOCUS_RING } from './cn';

export const Dialog = DialogPrimitive.Root;
export const DialogTrigger = DialogPrimitive.Trigger;
export const DialogClose = DialogPrimitive.Close;
export const DialogPortal = DialogPrimitive.Portal;

export function DialogOverlay({ className, ...props }: ComponentPropsWithRef<typeof DialogPrimitive.Overlay>) {
  return <DialogPrimitive.Overlay className={cn('fixed inset-0 z-40 bg-zinc-950/50', className)} {...props} />;
}

/** A centred modal: focus is trapped inside, Escape and the overlay close it, focus returns to its trigger. */
export function DialogContent({
  className,
  children,
  ...props
}: ComponentPropsWithRef<typeof DialogPrimitive.Content>) {
  return (
    <DialogPortal>
      <DialogOverlay />
      <DialogPrimitive.Content
        className={cn(
          'fixed left-1/2 top-1/2 z-50 max-h-[90vh] w-[calc(100%-2rem)] max-w-lg -translate-x-1/2 ' +
            '-translate-y-1/2 overflow-y-auto rounded-lg border border-zinc-200 bg-white p-4 shadow-xl ' +
            'dark:border-zinc-800 dark:bg-zinc-900',
          className,
        )}
        {...props}
      >
        {children}
      </DialogPrimitive.Content>
    </DialogPortal>
  );
}

export function DialogTitle({ className, ...props }: ComponentPropsWithRef<typeof DialogPrimitive.Title>) {
  return <DialogPrimitive.Title className={cn('text-base font-semibold', className)} {...props} />;
}

export function DialogDescription({ className, ...props }: ComponentPropsWithRef<typeof DialogPrimitive.Description>) {
  return (
    <DialogPrimitive.Description className={cn('text-sm text-zinc-600 dark:text-zinc-400', className)} {...props} />
  );
}

/** The ✕ in a dialog's or sheet's corner, named for screen readers. */
export function DialogCloseButton({
  label = 'Close',
  className,
  ...props
}: ComponentPropsWithRef<typeof DialogPrimitive.Close> & { label?: string }) {
  return (
    <DialogPrimitive.Close
      aria-label={label}
      className={cn(
        'inline-flex h-9 w-9 items-center justify-center rounded-md text-zinc-600 hover:bg-zinc-100 ' +
          'dark:text-zinc-400 dark:hover:bg-zinc-800',
        FOCUS_RING,
        className,
      )}
      {...props}
    >
      <span aria-hidden="true">✕</span>
    </DialogPrimitive.Close>
  );
}
