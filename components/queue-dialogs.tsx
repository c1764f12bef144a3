'use client';

import { type ReactNode, useRef, useState } from 'react';
import { rejectPresets } from '@/lib/decisions/requests';
import type { QueueItem } from '@/lib/shared/queue-view';
import { FlagChips } from './flag-chips';
import { FactsView, useFreshFacts } from './fresh-facts';
import { PayloadText } from './payload-text';
import { ChangedChip, ItemSignals, quorumAfterYours, RiskBadge } from './queue-signals';
import { ReasonPresets } from './reason-presets';
import { Button } from './ui/button';
import { Dialog, DialogContent, DialogDescription, DialogTitle } from './ui/dialog';
import { Textarea } from './ui/textarea';

/**
 * A queue confirmation on the components/ui dialog: it opens on its `[data-autofocus]` control (so
 * Enter confirms an approval and a reason can be typed at once), Escape and Cancel close it, and focus
 * goes back where it was unless the queue moved it meanwhile (a decided row's focus moves on to the
 * next item that needs the viewer).
 */
function QueueDialog({
  open,
  onClose,
  testId,
  title,
  description,
  children,
}: {
  open: boolean;
  onClose: () => void;
  testId: string;
  title: ReactNode;
  description?: ReactNode;
  children: ReactNode;
}) {
  const content = useRef<HTMLDivElement>(null);
  const returnTo = useRef<HTMLElement | null>(null);
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (!next) onClose();
      }}
    >
      <DialogContent
        ref={content}
        data-testid={testId}
        {...(description ? {} : { 'aria-describedby': undefined })}
        onOpenAutoFocus={(event) => {
          returnTo.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
          const first = content.current?.querySelector<HTMLElement>('[data-autofocus]');
          if (!first) return;
          event.preventDefault();
          first.focus();
        }}
        onCloseAutoFocus={(event) => {
          event.preventDefault();
          const back = returnTo.current;
          returnTo.current = null;
          const unclaimed = !document.activeElement || document.activeElement === document.body;
          if (unclaimed && back?.isConnected) back.focus({ preventScroll: true });
        }}
      >
        <DialogTitle className="text-lg">{title}</DialogTitle>
        {description ? <DialogDescription className="mt-1">{description}</DialogDescription> : null}
        {children}
      </DialogContent>
    </Dialog>
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
          <li
            key={item.id}
            data-testid="queue-confirm-item"
            data-proposal-id={item.id}
            className="grid gap-1.5 rounded border border-zinc-200 p-2 dark:border-zinc-700"
          >
            {approving ? (
              <span className="block font-medium">
                <PayloadText value={item.approveLabel} mono={false} />
              </span>
            ) : null}
            <span className={approving ? 'block text-zinc-600 dark:text-zinc-400' : 'block font-medium'}>
              <PayloadText value={item.summary} mono={false} />
            </span>
            {single ? (
              <ItemSignals
                item={item}
                testId="queue-confirm-signals"
                changed={facts.data && facts.data.state !== 'unavailable' ? null : item.changedSinceProposed}
              >
                {approving ? (
                  <FactsView facts={facts.data} failed={facts.isError} testId="queue-confirm-facts" />
                ) : null}
              </ItemSignals>
            ) : (
              <span className="flex flex-wrap gap-1">
                <RiskBadge item={item} testId="signals-risk" />
                <FlagChips flags={item.flags} testId="signals-flags" />
                <ChangedChip description={item.changedSinceProposed} />
              </span>
            )}
            {after ? (
              <span data-testid="queue-confirm-quorum" className="font-medium text-amber-800 dark:text-amber-300">
                {after}
              </span>
            ) : null}
            <code data-testid={`queue-confirm-hash-${item.id}`} className="block break-all font-mono text-xs">
              {item.payloadHash}
            </code>
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
export function ApproveDialog({
  items,
  onConfirm,
  onClose,
}: {
  items: QueueItem[];
  onConfirm: () => void;
  onClose: () => void;
}) {
  const single = items.length === 1 ? items[0] : undefined;
  const ended = useEndedMeanwhile(single);
  const title = single ? `${single.approveLabel}?` : `Approve ${items.length} proposals?`;
  return (
    <QueueDialog
      open={items.length > 0}
      onClose={onClose}
      testId="queue-approve-dialog"
      title={<PayloadText value={title} mono={false} />}
      description={
        single
          ? 'Approving signs this hash — the exact payload behind it:'
          : 'Each approval signs its own hash — the exact payload behind it:'
      }
    >
      <ItemList items={items} approving />
      <form
        className="flex flex-wrap justify-end gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          if (!ended) onConfirm();
        }}
      >
        <Button variant="secondary" size="lg" data-testid="queue-cancel-approve" onClick={onClose}>
          Cancel
        </Button>
        <Button
          variant="primary"
          size="lg"
          type="submit"
          data-autofocus
          data-testid="queue-confirm-approve"
          disabled={ended}
        >
          {single ? <PayloadText value={single.approveLabel} mono={false} /> : `Approve ${items.length}`}
        </Button>
      </form>
    </QueueDialog>
  );
}

/** A rejection needs a reason: a preset or free text, one for every item. */
export function RejectDialog({
  items,
  onConfirm,
  onClose,
}: {
  items: QueueItem[];
  onConfirm: (reason: string) => void;
  onClose: () => void;
}) {
  const [reason, setReason] = useState('');
  const presets = rejectPresets(items.flatMap((item) => item.flags.map((flag) => flag.kind)));
  const trimmed = reason.trim();
  return (
    <QueueDialog
      open={items.length > 0}
      onClose={() => {
        setReason('');
        onClose();
      }}
      testId="queue-reject-dialog"
      title={items.length === 1 ? 'Reject this proposal?' : `Reject ${items.length} proposals?`}
    >
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
          <div className="mt-2">
            <ReasonPresets
              presets={presets}
              reason={reason}
              onPick={setReason}
              testId={(index) => `queue-reject-preset-${index}`}
            />
          </div>
          <label className="mt-3 block text-sm">
            Or in your words
            <Textarea
              data-autofocus
              data-testid="queue-reject-reason"
              required
              maxLength={500}
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              rows={2}
              className="mt-1"
            />
          </label>
        </fieldset>
        <div className="mt-3 flex flex-wrap justify-end gap-2">
          <Button
            variant="secondary"
            size="lg"
            data-testid="queue-cancel-reject"
            onClick={() => {
              setReason('');
              onClose();
            }}
          >
            Cancel
          </Button>
          <Button variant="destructive" size="lg" type="submit" data-testid="queue-confirm-reject" disabled={!trimmed}>
            {items.length === 1 ? 'Reject proposal' : `Reject ${items.length}`}
          </Button>
        </div>
      </form>
    </QueueDialog>
  );
}
