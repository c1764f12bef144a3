'use client';

import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import { ShortcutsHelp } from './shortcuts-help';
import { Button } from './ui/button';
import { usePageKeys } from './use-page-keys';

export const PROPOSAL_SHORTCUTS: [string, string][] = [
  ['a', 'approve (asks to confirm, shows the hash)'],
  ['r', 'reject (asks for a reason)'],
  ['j', 'next proposal waiting for you (queue order, expiring first)'],
  ['k', 'previous proposal waiting for you'],
  ['?', 'this list'],
  ['Escape', 'cancel the approval or rejection, or close a dialog'],
];

/** What a key asks of the decision panel. */
export type DecisionKey = 'approve' | 'reject' | 'cancel';

const DECISION_KEY_EVENT = 'countersign:decision-key';

/** The decision panel listens for `a`, `r` and Escape through this (it owns its confirmation). */
export function useDecisionKeys(onKey: (key: DecisionKey) => void): void {
  const handler = useRef(onKey);
  useEffect(() => {
    handler.current = onKey;
  });
  useEffect(() => {
    const listener = (event: Event) => handler.current((event as CustomEvent<DecisionKey>).detail);
    window.addEventListener(DECISION_KEY_EVENT, listener);
    return () => window.removeEventListener(DECISION_KEY_EVENT, listener);
  }, []);
}

const sendDecisionKey = (key: DecisionKey) =>
  window.dispatchEvent(new CustomEvent<DecisionKey>(DECISION_KEY_EVENT, { detail: key }));

type Props = {
  /** The previous and next proposals waiting for this person (lib/proposals/neighbours.ts). */
  previousId: string | null;
  nextId: string | null;
  /** Whether `a` and `r` mean anything here (the decision panel is shown). */
  canDecide: boolean;
};

/**
 * The proposal page's keys: `a` approve and `r` reject (the decision panel asks to confirm), `j`
 * and `k` to the next and previous proposal waiting for this person, `?` the list. Keys do nothing
 * while typing or while a dialog is open; Escape still cancels.
 */
export function ProposalKeys({ previousId, nextId, canDecide }: Props) {
  const router = useRouter();
  const [helpOpen, setHelpOpen] = useState(false);
  const [notice, setNotice] = useState('');
  const rootRef = useRef<HTMLDivElement>(null);

  usePageKeys((event) => {
    const go = (id: string | null, none: string) => {
      if (id) router.push(`/proposals/${encodeURIComponent(id)}`);
      else setNotice(none);
    };
    switch (event.key) {
      case 'Escape':
        sendDecisionKey('cancel');
        break;
      case 'a':
      case 'r':
        if (!canDecide) return;
        event.preventDefault();
        sendDecisionKey(event.key === 'a' ? 'approve' : 'reject');
        break;
      case 'j':
        event.preventDefault();
        go(nextId, 'Nothing after this one is waiting for you.');
        break;
      case 'k':
        event.preventDefault();
        go(previousId, 'Nothing before this one is waiting for you.');
        break;
      case '?':
        event.preventDefault();
        setHelpOpen(true);
        break;
    }
  }, rootRef);

  return (
    <div
      ref={rootRef}
      data-testid="proposal-keys"
      className="flex flex-wrap max-sm:hidden items-center gap-x-2 text-xs text-zinc-600 dark:text-zinc-400"
    >
      <span>{canDecide ? 'a approve · r reject · ' : ''}j/k next/previous waiting for you ·</span>
      <Button variant="link" data-testid="shortcuts-help-open" onClick={() => setHelpOpen(true)}>
        ? keys
      </Button>
      <span role="status" data-testid="proposal-keys-notice">
        {notice}
      </span>
      <ShortcutsHelp open={helpOpen} onClose={() => setHelpOpen(false)} shortcuts={PROPOSAL_SHORTCUTS} />
    </div>
  );
}
