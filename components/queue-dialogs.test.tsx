import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import type { FreshFacts } from '@/lib/proposals/fresh-facts';
import type { QueueItem } from '@/lib/shared/queue-view';
import { factsQueryKey } from './fresh-facts';
import { ApproveDialog, RejectDialog } from './queue-dialogs';

const HASH = `sha256:${'c0ffee'.repeat(10)}abcd`;

const item = (id: string, flags: QueueItem['flags'] = []): QueueItem => ({
  id,
  summary: 'Hold 4 × filter-blue',
  approveLabel: 'Approve hold of 4 × filter-blue',
  action: 'hold_stock',
  agent: 'agent-ops',
  risk: 'medium',
  rule: 'holds over 3',
  role: 'approver',
  approvals: { have: 0, need: 1 },
  payloadHash: HASH,
  createdAt: '2026-12-02T10:00:00.000Z',
  expiresAt: '2026-12-03T10:00:00.000Z',
  flags,
  changedSinceProposed: null,
  mine: { kind: 'decide' },
  args: [],
  reason: null,
  evidence: [],
});

/** Facts already answered (and fresh for the query's 5 s), so nothing is fetched. */
function client(ids: string[], state: FreshFacts['state'] = 'fresh') {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  for (const id of ids) {
    const facts: FreshFacts = {
      proposalId: id,
      state,
      checkedAt: new Date().toISOString(),
      atProposal: { at: '2026-12-02T10:00:00.000Z', detail: '12 in stock', facts: {} },
      now: { detail: '12 in stock', facts: {} },
      note: null,
    };
    queryClient.setQueryData(factsQueryKey(id), facts);
  }
  return queryClient;
}

/** A row link that opens the dialog, as the queue does: the dialog is told its items, and told to close. */
function Harness({
  dialog,
  items,
  onConfirm,
}: {
  dialog: 'approve' | 'reject';
  items: QueueItem[];
  onConfirm: (reason?: string) => void;
}) {
  const [open, setOpen] = useState<QueueItem[]>([]);
  const close = () => setOpen([]);
  return (
    <>
      <a
        href="#row"
        data-testid="row-link"
        onClick={(event) => {
          event.preventDefault();
          setOpen(items);
        }}
      >
        row
      </a>
      {dialog === 'approve' ? (
        <ApproveDialog
          items={open}
          onClose={close}
          onConfirm={() => {
            onConfirm();
            close();
          }}
        />
      ) : (
        <RejectDialog
          items={open}
          onClose={close}
          onConfirm={(reason) => {
            onConfirm(reason);
            close();
          }}
        />
      )}
    </>
  );
}

function open(dialog: 'approve' | 'reject', items: QueueItem[], state?: FreshFacts['state']) {
  const onConfirm = vi.fn<(reason?: string) => void>();
  render(
    <QueryClientProvider
      client={client(
        items.map((i) => i.id),
        state,
      )}
    >
      <Harness dialog={dialog} items={items} onConfirm={onConfirm} />
    </QueryClientProvider>,
  );
  const link = screen.getByTestId('row-link');
  link.focus();
  fireEvent.click(link);
  return { onConfirm, link };
}

/** Radix gives focus back a tick after the dialog unmounts. */
const afterClose = () => act(() => new Promise((resolve) => setTimeout(resolve, 0)));

describe('ApproveDialog', () => {
  it('is a modal dialog named for what approving does, showing the hash it signs, opened on its confirm button', () => {
    open('approve', [item('prp_1')]);
    const dialog = screen.getByRole('dialog', { name: 'Approve hold of 4 × filter-blue?' });
    expect(dialog.dataset.testid).toBe('queue-approve-dialog');
    expect(dialog.getAttribute('aria-describedby')).toBeTruthy();
    expect(screen.getByTestId('queue-confirm-hash-prp_1').textContent).toBe(HASH);
    expect(document.activeElement).toBe(screen.getByTestId('queue-confirm-approve'));
  });

  it('confirms by submitting (what Enter on the focused button does), and closes', () => {
    const { onConfirm } = open('approve', [item('prp_1')]);
    fireEvent.submit(screen.getByTestId('queue-confirm-approve'));
    expect(onConfirm).toHaveBeenCalledTimes(1);
    expect(screen.queryByTestId('queue-approve-dialog')).toBeNull();
  });

  it('Escape closes it without deciding, and focus goes back to the row', async () => {
    const { onConfirm, link } = open('approve', [item('prp_1')]);
    fireEvent.keyDown(screen.getByTestId('queue-confirm-approve'), { key: 'Escape' });
    expect(screen.queryByTestId('queue-approve-dialog')).toBeNull();
    await afterClose();
    expect(onConfirm).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(link);
  });

  it('leaves focus where the queue put it meanwhile (the next row), rather than on the decided one', async () => {
    const { link } = open('approve', [item('prp_1')]);
    const next = document.createElement('button');
    document.body.append(next);
    fireEvent.submit(screen.getByTestId('queue-confirm-approve'));
    next.focus();
    await afterClose();
    expect(document.activeElement).toBe(next);
    expect(document.activeElement).not.toBe(link);
    next.remove();
  });

  it('refuses to confirm an item that ended meanwhile (its fresh check says stale)', () => {
    const { onConfirm } = open('approve', [item('prp_1')], 'stale');
    expect((screen.getByTestId('queue-confirm-approve') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.submit(screen.getByTestId('queue-confirm-approve'));
    expect(onConfirm).not.toHaveBeenCalled();
  });

  it('names a batch by its count and lists each item with its own hash', () => {
    open('approve', [item('prp_1'), item('prp_2')]);
    expect(screen.getByRole('dialog', { name: 'Approve 2 proposals?' })).toBeTruthy();
    expect(screen.getAllByTestId('queue-confirm-item')).toHaveLength(2);
    expect(screen.getByTestId('queue-confirm-approve').textContent).toBe('Approve 2');
  });
});

describe('RejectDialog', () => {
  it('opens on the reason field; confirm waits for a reason; a preset fills it', () => {
    const { onConfirm } = open('reject', [item('prp_1')]);
    expect(screen.getByRole('dialog', { name: 'Reject this proposal?' })).toBeTruthy();
    const reason = screen.getByTestId('queue-reject-reason') as HTMLTextAreaElement;
    expect(document.activeElement).toBe(reason);
    expect((screen.getByTestId('queue-confirm-reject') as HTMLButtonElement).disabled).toBe(true);
    const preset = screen.getByTestId('queue-reject-preset-0');
    fireEvent.click(preset);
    expect(reason.value).toBe(preset.dataset.preset);
    expect(preset.getAttribute('aria-pressed')).toBe('true');
    fireEvent.click(screen.getByTestId('queue-confirm-reject'));
    expect(onConfirm).toHaveBeenCalledWith(preset.dataset.preset);
  });

  it('sends the reason trimmed, and a blank one never', () => {
    const { onConfirm } = open('reject', [item('prp_1')]);
    const reason = screen.getByTestId('queue-reject-reason');
    fireEvent.change(reason, { target: { value: '   ' } });
    fireEvent.submit(reason);
    expect(onConfirm).not.toHaveBeenCalled();
    fireEvent.change(reason, { target: { value: '  Wrong warehouse  ' } });
    fireEvent.submit(reason);
    expect(onConfirm).toHaveBeenCalledWith('Wrong warehouse');
  });

  it('Cancel closes it, forgets the typed reason, and gives focus back', async () => {
    const { onConfirm, link } = open('reject', [item('prp_1')]);
    fireEvent.change(screen.getByTestId('queue-reject-reason'), { target: { value: 'half typed' } });
    fireEvent.click(screen.getByTestId('queue-cancel-reject'));
    await afterClose();
    expect(screen.queryByTestId('queue-reject-dialog')).toBeNull();
    expect(document.activeElement).toBe(link);
    fireEvent.click(link);
    expect((screen.getByTestId('queue-reject-reason') as HTMLTextAreaElement).value).toBe('');
    expect(onConfirm).not.toHaveBeenCalled();
  });
});
