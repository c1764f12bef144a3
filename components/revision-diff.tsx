import Link from 'next/link';
import type { RevisionChange } from '@/lib/decisions/revision-view';
import { PayloadText } from './payload-text';

/**
 * A revision's changes against its parent, field by field and in words ("amount: 15.00 → 12.00
 * EUR"), as lib/decisions/revision-view.ts words them with the action's own formatting, and the
 * editor's reason (their own text, shown inertly like every untrusted string).
 */
export function RevisionDiff({
  parentId,
  editor,
  reason,
  changes,
}: {
  parentId: string;
  editor: string;
  reason: string | null;
  changes: RevisionChange[];
}) {
  return (
    <section
      data-testid="revision-diff"
      aria-label="Changes in this revision"
      className="rounded-lg border border-blue-200 bg-blue-50 p-4 text-sm dark:border-blue-900 dark:bg-blue-950/40"
    >
      <p>
        Revision of{' '}
        <Link className="font-mono underline" href={`/proposals/${parentId}`}>
          {parentId}
        </Link>
        , edited by <span className="font-medium">{editor}</span>
        {reason ? (
          <>
            : “
            <span data-testid="revision-why-shown" className="italic">
              <PayloadText value={reason} mono={false} />
            </span>
            ”
          </>
        ) : null}
        . It went through every check again and has its own hash.
      </p>
      <ul className="mt-2 space-y-1">
        {changes.map((change) => (
          <li key={change.field} data-testid={`diff-${change.field}`}>
            <span className="text-zinc-600 dark:text-zinc-400">{change.label}:</span>{' '}
            <del className="decoration-red-500">
              <PayloadText value={change.before} mono={false} />
            </del>{' '}
            →{' '}
            <ins className="font-medium no-underline">
              <PayloadText value={change.after} mono={false} />
            </ins>
            {change.unit ? ` ${change.unit}` : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
