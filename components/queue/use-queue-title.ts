'use client';

import { useEffect } from 'react';
import { countText } from '@/lib/shared/queue-view';

/** The tab's title counts what needs the viewer: "(3) Queue · Countersign". */
export function useQueueTitle(waiting: number, exact: boolean) {
  useEffect(() => {
    document.title = waiting > 0 ? `(${countText(waiting, exact)}) Queue · Countersign` : 'Queue · Countersign';
  }, [waiting, exact]);
}
