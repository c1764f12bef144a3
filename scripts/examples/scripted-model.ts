import type { ToolOutcome } from '@/lib/adapters/propose-and-wait';

/**
 * The examples' stand-in for a language model, so they run with no model and no API key: it asks
 * for a refund with a mistake a model makes (the amount as a decimal string), repairs it from the
 * refusal's issues, and then tells the person what happened, from the tool's result alone.
 */
export type Move = { call: Record<string, unknown> } | { say: string };

export function refundScript(orderId: string, amountMinor: number) {
  const args = {
    orderId,
    currency: 'USD',
    reason: 'Filter arrived damaged; customer asked for a partial refund',
    evidenceRefs: [] as string[],
  };
  return (last: ToolOutcome | undefined): Move => {
    if (!last) return { call: { ...args, amountMinor: (amountMinor / 100).toFixed(2) } };
    if (last.outcome === 'refused') {
      const fixed = last.issues.some((issue) => issue.field === 'amountMinor');
      return fixed ? { call: { ...args, amountMinor } } : { say: `Countersign refused the refund: ${last.message}` };
    }
    if (last.outcome === 'no_decision_yet') return { say: `Nobody has decided yet: ${last.message}` };
    const decision = last.decision
      ? `${last.decision.decision === 'approve' ? 'approved' : 'rejected'} by a ` +
        `person${last.decision.reason ? ` (“${last.decision.reason}”)` : ''}`
      : 'no decision';
    return { say: `The refund on ${orderId} ended ${last.outcome}: ${decision}. Review: ${last.reviewUrl}` };
  };
}
