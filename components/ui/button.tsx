'use client';

import { Slot } from '@radix-ui/react-slot';
import type { ComponentPropsWithRef } from 'react';
import { cn, FOCUS_RING } from './cn';

const VARIANTS = {
  primary: 'bg-blue-700 text-white hover:bg-blue-800',
  secondary:
    'border border-zinc-300 bg-white text-zinc-900 hover:bg-zinc-100 dark:border-zinc-700 dark:bg-zinc-900 ' +
    'dark:text-zinc-100 dark:hover:bg-zinc-800',
  destructive: 'bg-red-700 text-white hover:bg-red-600 dark:bg-red-600 dark:hover:bg-red-500',
  danger: 'border border-red-700 text-red-800 hover:bg-red-50 dark:text-red-300 dark:hover:bg-red-950',
  ghost: 'text-zinc-700 hover:bg-zinc-200 dark:text-zinc-300 dark:hover:bg-zinc-800',
  /** News to take in when ready (new items arrived): tinted, not alarming. */
  notice:
    'border border-blue-300 bg-blue-50 text-blue-900 hover:bg-blue-100 dark:border-blue-800 dark:bg-blue-950 ' +
    'dark:text-blue-200 dark:hover:bg-blue-900',
  link: 'underline underline-offset-2',
} as const;

const SIZES = {
  /** An inline action beside a value, as tall as its line (copy). */
  xs: 'rounded px-1.5 text-xs',
  sm: 'rounded-md font-medium px-2 py-1 text-xs',
  md: 'rounded-md font-medium px-3 py-1.5 text-sm',
  lg: 'rounded-md font-medium px-4 py-2',
  icon: 'h-9 w-9 justify-center rounded-md font-medium',
  /** A pill to pick one of a few values (a preset reason); `aria-pressed` shows the picked one. */
  chip: 'rounded-full px-2 py-0.5 text-xs aria-pressed:bg-zinc-200 dark:aria-pressed:bg-zinc-700',
} as const;

export type ButtonProps = ComponentPropsWithRef<'button'> & {
  variant?: keyof typeof VARIANTS;
  size?: keyof typeof SIZES;
  /** Render the one child (a link, a Radix trigger's child) with the button's look. */
  asChild?: boolean;
};

/** The one button: variants for weight, sizes for density; `type="button"` unless told otherwise. */
export function Button({
  variant = 'secondary',
  size = 'md',
  asChild = false,
  className,
  type,
  ...props
}: ButtonProps) {
  const Component = asChild ? Slot : 'button';
  return (
    <Component
      {...(asChild ? {} : { type: type ?? 'button' })}
      className={cn(
        'inline-flex items-center justify-center gap-1.5 disabled:opacity-50',
        variant === 'link' ? 'rounded-md font-medium' : SIZES[size],
        VARIANTS[variant],
        FOCUS_RING,
        className,
      )}
      {...props}
    />
  );
}
