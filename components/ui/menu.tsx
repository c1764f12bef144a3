'use client';

import * as MenuPrimitive from '@radix-ui/react-dropdown-menu';
import type { ComponentPropsWithRef } from 'react';
import { cn } from './cn';

/**
 * Not modal: the page behind stays in the accessibility tree (a modal menu hides it with aria-hidden
 * while its links stay focusable, which axe reports as serious); Escape and an outside click still close it.
 */
export function Menu({ modal = false, ...props }: ComponentPropsWithRef<typeof MenuPrimitive.Root>) {
  return <MenuPrimitive.Root modal={modal} {...props} />;
}

export const MenuTrigger = MenuPrimitive.Trigger;
export const MenuGroup = MenuPrimitive.Group;

/** A drop-down menu (arrow keys move, typing jumps, Escape closes and returns focus to the trigger). */
export function MenuContent({
  className,
  sideOffset = 6,
  align = 'end',
  ...props
}: ComponentPropsWithRef<typeof MenuPrimitive.Content>) {
  return (
    <MenuPrimitive.Portal>
      <MenuPrimitive.Content
        sideOffset={sideOffset}
        align={align}
        className={cn(
          'z-50 min-w-52 rounded-md border border-zinc-200 bg-white p-1 text-sm shadow-lg dark:border-zinc-800 ' +
            'dark:bg-zinc-900',
          className,
        )}
        {...props}
      />
    </MenuPrimitive.Portal>
  );
}

export function MenuItem({ className, ...props }: ComponentPropsWithRef<typeof MenuPrimitive.Item>) {
  return (
    <MenuPrimitive.Item
      className={cn(
        'flex w-full cursor-default select-none items-center gap-2 rounded px-2 py-1.5 text-left outline-none ' +
          'data-[highlighted]:bg-zinc-100 data-[disabled]:opacity-50 dark:data-[highlighted]:bg-zinc-800',
        className,
      )}
      {...props}
    />
  );
}

export function MenuLabel({ className, ...props }: ComponentPropsWithRef<typeof MenuPrimitive.Label>) {
  return (
    <MenuPrimitive.Label className={cn('px-2 py-1.5 text-xs text-zinc-600 dark:text-zinc-400', className)} {...props} />
  );
}

export function MenuSeparator({ className, ...props }: ComponentPropsWithRef<typeof MenuPrimitive.Separator>) {
  return <MenuPrimitive.Separator className={cn('my-1 h-px bg-zinc-200 dark:bg-zinc-800', className)} {...props} />;
}

/**
 * A menu item that submits the <form> around it, so the action works before (and without)
 * JavaScript; picking it keeps the menu open (and its form mounted) until the page leaves.
 */
export function MenuSubmitItem({ className, children, ...props }: Omit<ComponentPropsWithRef<'button'>, 'type'>) {
  return (
    <MenuItem asChild onSelect={(event) => event.preventDefault()} className={className}>
      <button type="submit" {...props}>
        {children}
      </button>
    </MenuItem>
  );
}
