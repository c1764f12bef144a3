import type { QueueGroup, QueueView } from '@/lib/shared/queue-view';
import { Button } from '../ui/button';

/** Where an empty page is not the end: the pending proposals looked at so far, and a way to look further. */
export type Further = { looked: number; busy: boolean; onLook: () => void };

type Props = {
  view: QueueView;
  filtered: boolean;
  canDecide: boolean;
  waiting: string | null;
  further?: Further;
  onClear: () => void;
  onGroup: (group: QueueGroup) => void;
};

/** An empty list says why (filters, nothing needing you, nothing at all) and where to look instead. */
export function QueueEmpty({ view, filtered, canDecide, waiting, further, onClear, onGroup }: Props) {
  const link = 'mt-2 text-sm';
  return (
    <div
      data-testid="queue-empty"
      className="rounded-lg border border-dashed border-zinc-300 p-10 text-center dark:border-zinc-700"
    >
      {further ? (
        <>
          <p className="text-lg font-medium">
            Nothing here among the first {further.looked.toLocaleString('en')} pending proposals.
          </p>
          <Button
            variant="link"
            data-testid="queue-look-further"
            disabled={further.busy}
            onClick={further.onLook}
            className={link}
          >
            {further.busy ? 'Looking…' : 'Look further'}
          </Button>
        </>
      ) : filtered ? (
        <>
          <p className="text-lg font-medium">Nothing here matches these filters.</p>
          <Button variant="link" data-testid="queue-empty-clear" onClick={onClear} className={link}>
            Clear filters
          </Button>
        </>
      ) : view.group === 'needs-you' ? (
        <>
          <p className="text-lg font-medium">
            {canDecide
              ? 'Nothing needs you right now.'
              : 'Nothing needs you: viewers read the queue; deciding needs the approver role.'}
          </p>
          {waiting ? (
            <Button
              variant="link"
              data-testid="queue-empty-waiting"
              onClick={() => onGroup(canDecide ? 'waiting' : 'all')}
              className={link}
            >
              {canDecide ? `${waiting} waiting on others` : 'See everything pending'}
            </Button>
          ) : null}
        </>
      ) : view.group === 'waiting' ? (
        <p className="text-lg font-medium">Nothing is waiting on others.</p>
      ) : (
        <>
          <p className="text-lg font-medium">Nothing is waiting for a decision.</p>
          <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">
            Agents send proposals to <code className="font-mono">POST /api/v1/proposals</code> with their key; see
            “Connect an agent” in the README.
          </p>
        </>
      )}
    </div>
  );
}
