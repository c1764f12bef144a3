'use client';

import { useEffect } from 'react';
import { postView } from '@/lib/client/operator-api';

/** Proposals this tab already reported: the server keeps only the first look anyway, this saves the requests. */
const reported = new Set<string>();

/**
 * Tells the server the person is looking at these proposals in the queue (its preview or the
 * approve dialog), for the oversight figures' dwell (docs/oversight.md). Fire and forget: a
 * failure only leaves the dwell unmeasured, it never blocks a decision.
 */
export function useFirstLook(proposalIds: readonly string[]) {
  const key = proposalIds.join(',');
  useEffect(() => {
    for (const id of key ? key.split(',') : []) {
      if (reported.has(id)) continue;
      reported.add(id);
      void postView(id, 'queue');
    }
  }, [key]);
}
