'use client';

import { Modal } from './queue-dialogs';

export const QUEUE_SHORTCUTS: [string, string][] = [
  ['j or ↓', 'next proposal'],
  ['k or ↑', 'previous proposal'],
  ['Home / End', 'first / last proposal'],
  ['Enter or o', 'open the proposal'],
  ['a', 'approve: a low-risk item with no flags whose facts were just checked unchanged, at once; anything else asks to confirm first and shows its flags, risk, facts, reason and evidence (Enter confirms)'],
  ['r', 'reject (asks for a reason)'],
  ['x or Space', 'select or unselect for a batch (a batch always asks to confirm)'],
  ['?', 'this list'],
  ['Escape', 'close a dialog'],
];

/** The keys of a page, opened with `?`; Escape closes it. */
export function ShortcutsHelp({ open, onClose, shortcuts = QUEUE_SHORTCUTS }: { open: boolean; onClose: () => void; shortcuts?: [string, string][] }) {
  return (
    <Modal open={open} onClose={onClose} label="Keyboard shortcuts" testId="shortcuts-help">
      <h2 className="text-lg font-semibold">Keyboard shortcuts</h2>
      <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm">
        {shortcuts.map(([keys, what]) => (
          <div key={keys} className="contents">
            <dt><kbd className="rounded border border-zinc-300 px-1.5 font-mono text-xs dark:border-zinc-600">{keys}</kbd></dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <p className="mt-3 text-xs text-zinc-600 dark:text-zinc-400">a, r and x act only on proposals that need you; rows waiting on others are skipped. Keys do nothing while you type in a field.</p>
      <div className="mt-4 flex justify-end">
        <button type="button" data-testid="shortcuts-help-close" onClick={onClose} className="rounded-md border border-zinc-300 px-4 py-2 focus-visible:outline-2 focus-visible:outline-blue-600 dark:border-zinc-700">Close</button>
      </div>
    </Modal>
  );
}
