'use client';

import { type QueryKey, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { postDecision } from '@/lib/client/operator-api';
import { needsLook, type QueueItem } from '@/lib/shared/queue-view';
import { oneKeyReady } from '../fresh-facts';
import type { DecisionOutcome, DecisionResult } from '../queue-results';

type Outcome = DecisionOutcome & { sessionEnded?: boolean };
type Decision = 'approve' | 'reject';

async function decideItem(item: QueueItem, decision: Decision, reason?: string): Promise<Outcome> {
  const result = await postDecision(item.id, {
    decision,
    payloadHash: item.payloadHash,
    ...(reason ? { reason } : {}),
  });
  if (!result.ok)
    return {
      state: 'error',
      code: result.problem.code,
      message: result.problem.message,
      sessionEnded: result.problem.status === 401,
    };
  const answer = result.value;
  const approvals = answer.decisions?.filter((d) => d.decision === 'approve').length ?? item.approvals.have + 1;
  const more = Math.max((answer.routing?.approvals ?? item.approvals.need) - approvals, 0);
  return { state: 'done', decision, status: answer.status, more };
}

/**
 * Decisions from the queue: the confirm dialogs' items, the rows on their way (`pending`) and each
 * item's own result. `beforeSend` runs first with the ids leaving (focus moves on), `afterSend` once
 * every item has its answer (the selection lets go of them).
 */
export function useQueueDecisions(
  queryKey: QueryKey,
  hooks: { beforeSend: (ids: Set<string>) => void; afterSend: (ids: Set<string>) => void },
) {
  const queryClient = useQueryClient();
  const [pending, setPending] = useState<Map<string, Decision>>(() => new Map());
  const [approving, setApproving] = useState<QueueItem[]>([]);
  const [rejecting, setRejecting] = useState<QueueItem[]>([]);
  const [results, setResults] = useState<DecisionResult[]>([]);
  const [sessionEnded, setSessionEnded] = useState(false);
  // The latest hooks, read when a decision is sent (they close over the list as it is then).
  const latest = useRef(hooks);
  useEffect(() => {
    latest.current = hooks;
  });

  const decide = useCallback(
    async (targets: QueueItem[], decision: Decision, reason?: string) => {
      setApproving([]);
      setRejecting([]);
      const ids = new Set(targets.map((item) => item.id));
      latest.current.beforeSend(ids);
      setPending((current) => new Map([...current, ...targets.map((item) => [item.id, decision] as const)]));
      setResults((current) =>
        [
          ...targets.map(
            (item): DecisionResult => ({ id: item.id, summary: item.summary, outcome: { state: 'sending', decision } }),
          ),
          ...current.filter((result) => !ids.has(result.id)),
        ].slice(0, 100),
      );
      // One request per item, each with its own hash; each reports its own result.
      for (const item of targets) {
        const { sessionEnded: ended, ...outcome } = await decideItem(item, decision, reason);
        if (ended) setSessionEnded(true);
        setResults((current) => current.map((result) => (result.id === item.id ? { ...result, outcome } : result)));
      }
      latest.current.afterSend(ids);
      await queryClient.invalidateQueries({ queryKey });
      setPending((current) => new Map([...current].filter(([id]) => !ids.has(id))));
    },
    [queryClient, queryKey],
  );

  /**
   * `a`: a clear item whose facts were just checked clear is approved at once; anything else asks first, with what to
   * look at.
   */
  const approveOne = useCallback(
    (item: QueueItem) => {
      if (needsLook(item) || !oneKeyReady(queryClient, item.id)) setApproving([item]);
      else void decide([item], 'approve');
    },
    [decide, queryClient],
  );

  return {
    pending,
    approving,
    rejecting,
    results,
    sessionEnded,
    dialogOpen: approving.length > 0 || rejecting.length > 0,
    askApprove: setApproving,
    askReject: setRejecting,
    closeDialogs: () => {
      setApproving([]);
      setRejecting([]);
    },
    dismissResults: () => setResults([]),
    decide,
    approveOne,
  };
}
