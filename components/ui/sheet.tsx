'use client';

import * as DialogPrimitive from '@radix-ui/react-dialog';
import type { ComponentPropsWithRef } from 'react';
import { cn } from './cn';
import { DialogCloseButton, DialogOverlay, DialogPortal } from './dialog';

export {
  Dialog as Sheet,
  DialogClose as SheetClose,
  DialogDescription as SheetDescription,
  DialogTrigger as SheetTrigger,
} from './dialog';

const SIDES = {
  left: 'inset-y-0 left-0 h-full w-72 max-w-[85vw] border-r',
  right: 'inset-y-0 right-0 h-full w-80 max-w-[85vw] border-l',
  bottom: 'inset-x-0 bottom-0 max-h-[85vh] rounded-t-xl border-t',
} as const;

/**
 * A panel that slides in from an edge (a dialog underneath: focus trapped, Escape closes, focus
 * returns to the button that opened it). Its content is mounted only while open.
 */
export function SheetContent({
  side = 'left',
  title,
  className,
  children,
  ...props
}: ComponentPropsWithRef<typeof DialogPrimitive.Content> & { side?: keyof typeof SIDES; title: string }) {
  return (
    <DialogPortal>
      <DialogOverlay />
      <DialogPrimitive.Content
        className={cn(
          'fixed z-50 flex flex-col gap-3 overflow-y-auto border-zinc-200 bg-white p-4 shadow-xl ' +
            'dark:border-zinc-800 dark:bg-zinc-900',
          SIDES[side],
          className,
        )}
        {...props}
      >
        <div className="flex items-center justify-between gap-2">
          <DialogPrimitive.Title className="text-base font-semibold">{title}</DialogPrimitive.Title>
          <DialogCloseButton />
        </div>
        {children}
      </DialogPrimitive.Content>
    </DialogPortal>
  );
}
