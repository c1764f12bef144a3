import Link from 'next/link';
import { PayloadText } from './payload-text';

type Args = Record<string, unknown>;

const show = (value: unknown) => (value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value));

/** A revision's arguments beside its parent's: what the editor changed, field by field. */
export function RevisionDiff({ parentId, editor, before, after }: { parentId: string; editor: string; before: Args; after: Args }) {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const changed = names.filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name]));
  return (
    <section data-testid="revision-diff" aria-label="Changes in this revision" className="rounded-lg border border-blue-200 bg-blue-50 p-4 text-sm dark:border-blue-900 dark:bg-blue-950/40">
      <p>
        Revision of <Link className="font-mono underline" href={`/proposals/${parentId}`}>{parentId}</Link>, edited by <span className="font-medium">{editor}</span>. It went through every check again and has its own hash.
      </p>
      <table className="mt-2">
        <tbody>
          {changed.map((name) => (
            <tr key={name} data-testid={`diff-${name}`}>
              <th scope="row" className="pr-4 text-left font-mono font-normal text-zinc-500">{name}</th>
              <td className="pr-2 line-through decoration-red-500"><PayloadText value={show(before[name])} /></td>
              <td aria-hidden className="pr-2">→</td>
              <td><PayloadText value={show(after[name])} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
