'use client';

import * as TooltipPrimitive from '@radix-ui/react-tooltip';
import type { ReactNode } from 'react';

/**
 * A short hint on hover and keyboard focus (never the only place information lives: what it says
 * must also be reachable without a pointer, e.g. in the preview pane or the trigger's label).
 */
export function Tooltip({
  content,
  children,
  side = 'top',
}: {
  content: ReactNode;
  children: ReactNode;
  side?: 'top' | 'right' | 'bottom' | 'left';
}) {
  return (
    <TooltipPrimitive.Provider delayDuration={300}>
      <TooltipPrimitive.Root>
        <TooltipPrimitive.Trigger asChild>{children}</TooltipPrimitive.Trigger>
        <TooltipPrimitive.Portal>
          <TooltipPrimitive.Content
            side={side}
            sideOffset={4}
            className={
              'z-50 max-w-xs rounded bg-zinc-900 px-2 py-1 text-xs text-white shadow dark:bg-zinc-100 ' +
              'dark:text-zinc-900'
            }
          >
            {content}
            <TooltipPrimitive.Arrow className="fill-zinc-900 dark:fill-zinc-100" />
          </TooltipPrimitive.Content>
        </TooltipPrimitive.Portal>
      </TooltipPrimitive.Root>
    </TooltipPrimitive.Provider>
  );
}
