'use client';

import { useEffect, useRef, useState, type ReactNode } from 'react';
import { rejectPresets } from '@/lib/decisions/requests';
import type { QueueItem } from '@/lib/proposals/queue-view';
import { FactsView, useFreshFacts } from './fresh-facts';
import { useFirstLook } from './first-look';
import { FlagChips } from './flag-chips';
import { PayloadText } from './payload-text';
import { ChangedChip, ItemSignals, quorumAfterYours, RiskBadge } from './queue-signals';
import { Button } from './ui/button';

/** A modal <dialog>: focus stays inside, Escape closes it, focus returns where it was. */
export function Modal({ open, onClose, label, testId, children }: { open: boolean; onClose: () => void; label: string; testId: string; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      // React's autoFocus would run before showModal, whose own focusing picks the first button.
      dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    }
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-label={label}
      data-testid={testId}
      onClose={onClose}
      className="m-auto w-[min(36rem,calc(100vw-2rem))] rounded-lg border border-zinc-200 bg-white p-5 text-zinc-900 shadow-xl backdrop:bg-black/40 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
    >
      {open ? children : null}
    </dialog>
  );
}


/**
 * The items a dialog acts on. One item shows everything that should stop a fast approval (risk,
 * flags spelled out, its facts at proposal and now, the reason, the evidence's start); a batch
 * shows each item's risk and flag chips. Each repeats the hash it signs, and says when an approval
 * runs nothing yet. A rejection leads with what the proposal does, never with "Approve …".
 */
function ItemList({ items, approving }: { items: QueueItem[]; approving: boolean }) {
  const single = items.length === 1 ? items[0] : undefined;
  // The same answer the preview asked for (shared by id): why `a` stopped here, in words.
  const facts = useFreshFacts(single?.id);
  return (
    <ul className={`my-3 space-y-2 overflow-y-auto text-sm ${single ? 'max-h-[60vh]' : 'max-h-72'}`}>
      {items.map((item) => {
        const after = approving ? quorumAfterYours(item) : null;
        return (
          <li key={item.id} data-testid="queue-confirm-item" data-proposal-id={item.id} className="grid gap-1.5 rounded border border-zinc-200 p-2 dark:border-zinc-700">
            {approving ? <span className="block font-medium"><PayloadText value={item.approveLabel} mono={false} /></span> : null}
            <span className={approving ? 'block text-zinc-600 dark:text-zinc-400' : 'block font-medium'}><PayloadText value={item.summary} mono={false} /></span>
            {single ? (
              <ItemSignals item={item} testId="queue-confirm-signals" changed={facts.data && facts.data.state !== 'unavailable' ? null : item.changedSinceProposed}>
                {approving ? <FactsView facts={facts.data} failed={facts.isError} testId="queue-confirm-facts" /> : null}
              </ItemSignals>
            ) : (
              <span className="flex flex-wrap gap-1">
                <RiskBadge item={item} testId="signals-risk" />
                <FlagChips flags={item.flags} testId="signals-flags" />
                <ChangedChip description={item.changedSinceProposed} />
              </span>
            )}
            {after ? <span data-testid="queue-confirm-quorum" className="font-medium text-amber-800 dark:text-amber-300">{after}</span> : null}
            <code data-testid={`queue-confirm-hash-${item.id}`} className="block break-all font-mono text-xs">{item.payloadHash}</code>
          </li>
        );
      })}
    </ul>
  );
}

/** Whether this one item can no longer be approved, per its fresh check (it went stale or is no longer pending). */
function useEndedMeanwhile(item: QueueItem | undefined): boolean {
  const state = useFreshFacts(item?.id).data?.state;
  return state === 'stale' || state === 'closed';
}

/** Names the effect of each approval and repeats the hash it signs. */
export function ApproveDialog({ items, onConfirm, onClose }: { items: QueueItem[]; onConfirm: () => void; onClose: () => void }) {
  const single = items.length === 1 ? items[0] : undefined;
  const ended = useEndedMeanwhile(single);
  useFirstLook(items.map((item) => item.id));
  const title = single ? `${single.approveLabel}?` : `Approve ${items.length} proposals?`;
  return (
    <Modal open={items.length > 0} onClose={onClose} label="Confirm approval" testId="queue-approve-dialog">
      <h2 className="text-lg font-semibold"><PayloadText value={title} mono={false} /></h2>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
        {single ? 'Approving signs this hash — the exact payload behind it:' : 'Each approval signs its own hash — the exact payload behind it:'}
      </p>
      <ItemList items={items} approving />
      <form method="dialog" className="flex flex-wrap justify-end gap-2" onSubmit={(event) => { event.preventDefault(); if (!ended) onConfirm(); }}>
        <Button variant="secondary" size="lg" data-testid="queue-cancel-approve" onClick={onClose}>Cancel</Button>
        <Button variant="primary" size="lg" type="submit" data-autofocus data-testid="queue-confirm-approve" disabled={ended}>
          {single ? <PayloadText value={single.approveLabel} mono={false} /> : `Approve ${items.length}`}
        </Button>
      </form>
    </Modal>
  );
}

/** A rejection needs a reason: a preset or free text, one for every item. */
export function RejectDialog({ items, onConfirm, onClose }: { items: QueueItem[]; onConfirm: (reason: string) => void; onClose: () => void }) {
  const [reason, setReason] = useState('');
  const presets = rejectPresets(items.flatMap((item) => item.flags.map((flag) => flag.kind)));
  const trimmed = reason.trim();
  return (
    <Modal open={items.length > 0} onClose={() => { setReason(''); onClose(); }} label="Reject with a reason" testId="queue-reject-dialog">
      <h2 className="text-lg font-semibold">{items.length === 1 ? 'Reject this proposal?' : `Reject ${items.length} proposals?`}</h2>
      <ItemList items={items} approving={false} />
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!trimmed) return;
          onConfirm(trimmed);
          setReason('');
        }}
      >
        <fieldset>
          <legend className="text-sm font-medium">Reason (required{items.length > 1 ? ', one for all' : ''})</legend>
          <div className="mt-2 flex flex-wrap gap-2">
            {presets.map((preset, index) => (
              <button
                key={preset}
                type="button"
                data-testid={`queue-reject-preset-${index}`}
                data-preset={preset}
                aria-pressed={reason === preset}
                onClick={() => setReason(preset)}
                className="rounded-full border border-zinc-300 px-2 py-0.5 text-xs focus-visible:outline-2 focus-visible:outline-blue-600 aria-pressed:bg-zinc-200 dark:border-zinc-700 dark:aria-pressed:bg-zinc-700"
              >
                {preset}
              </button>
            ))}
          </div>
          <label className="mt-3 block text-sm">
            Or in your words
            <textarea data-autofocus data-testid="queue-reject-reason" required maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} rows={2} className="mt-1 block w-full rounded-md border border-zinc-300 bg-transparent p-2 dark:border-zinc-700" />
          </label>
        </fieldset>
        <div className="mt-3 flex flex-wrap justify-end gap-2">
          <Button variant="secondary" size="lg" data-testid="queue-cancel-reject" onClick={() => { setReason(''); onClose(); }}>Cancel</Button>
          <Button variant="destructive" size="lg" type="submit" data-testid="queue-confirm-reject" disabled={!trimmed}>
            {items.length === 1 ? 'Reject proposal' : `Reject ${items.length}`}
          </Button>
        </div>
      </form>
    </Modal>
  );
}
