'use client';

import { Button } from './ui/button';
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogTitle } from './ui/dialog';

export const QUEUE_SHORTCUTS: [string, string][] = [
  ['j or ↓', 'next proposal'],
  ['k or ↑', 'previous proposal'],
  ['Home / End', 'first / last proposal'],
  ['Enter or o', 'open the proposal'],
  [
    'a',
    'approve: a low-risk item with no flags whose facts were just checked unchanged, at once; anything else asks ' +
      'to confirm first and shows its flags, risk, facts, reason and evidence (Enter confirms)',
  ],
  ['r', 'reject (asks for a reason)'],
  ['x or Space', 'select or unselect for a batch (a batch always asks to confirm)'],
  ['?', 'this list'],
  ['Escape', 'close a dialog'],
];

/**
 * The keys of a page, opened with `?`; Escape closes it (a components/ui dialog: focus stays inside and returns after).
 */
export function ShortcutsHelp({
  open,
  onClose,
  shortcuts = QUEUE_SHORTCUTS,
}: {
  open: boolean;
  onClose: () => void;
  shortcuts?: [string, string][];
}) {
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (!next) onClose();
      }}
    >
      <DialogContent data-testid="shortcuts-help">
        <DialogTitle className="text-lg">Keyboard shortcuts</DialogTitle>
        <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm">
          {shortcuts.map(([keys, what]) => (
            <div key={keys} className="contents">
              <dt>
                <kbd className="rounded border border-zinc-300 px-1.5 font-mono text-xs dark:border-zinc-600">
                  {keys}
                </kbd>
              </dt>
              <dd>{what}</dd>
            </div>
          ))}
        </dl>
        <DialogDescription className="mt-3 text-xs">
          a, r and x act only on proposals that need you; rows waiting on others are skipped. Keys do nothing while you
          type in a field.
        </DialogDescription>
        <div className="mt-4 flex justify-end">
          <DialogClose asChild>
            <Button data-testid="shortcuts-help-close" className="px-4 py-2">
              Close
            </Button>
          </DialogClose>
        </div>
      </DialogContent>
    </Dialog>
  );
}
