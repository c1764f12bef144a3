import type { Definition } from '@/lib/definitions/document';
import { PayloadText } from './payload-text';
import { ViewerTime } from './viewer-time';

/** One published version of a definition, as the Contracts page shows it. */
export type DefinitionVersionView = {
  version: number;
  documentHash: string;
  note: string;
  publishedAt: string;
  /** Who published it, in words ("Carol", "the command line"), and the stored id for the hover title. */
  publishedBy: { id: string; label: string };
};

/** A declared action: its current document and versions, newest first (the first is current). */
export type ActionDefinitionView = { name: string; document: Definition; versions: DefinitionVersionView[] };

const CODE = 'font-mono text-xs break-all';
const BLOCK =
  'max-w-full overflow-x-auto rounded bg-zinc-100 px-2 py-1 font-mono text-xs break-all whitespace-pre-wrap ' +
  'dark:bg-zinc-800';

/** A CEL expression that must hold, as written. */
function Cel({ source }: { source: string }) {
  return (
    <pre className={BLOCK}>
      <span className="sr-only">requires </span>
      <PayloadText value={source} multiline />
    </pre>
  );
}

/** "sha256:9f2c1a0b…" with the whole hash on hover. */
function HashPrefix({ value }: { value: string }) {
  return (
    <code title={value} data-full={value} data-testid="definition-hash" className="font-mono text-xs">
      {value.slice(0, 'sha256:'.length + 12)}…
    </code>
  );
}

/** Who and when, and why: one line of a version. */
function Published({ view }: { view: DefinitionVersionView }) {
  return (
    <>
      by{' '}
      <span title={view.publishedBy.id} data-testid="definition-publisher">
        <PayloadText value={view.publishedBy.label} mono={false} />
      </span>{' '}
      · <ViewerTime value={view.publishedAt} testId="definition-published-at" />
    </>
  );
}

function Note({ note }: { note: string }) {
  return (
    <span data-testid="definition-note" className="block whitespace-pre-wrap break-words">
      Why: “<PayloadText value={note} mono={false} />”
    </span>
  );
}

function Services({ document }: { document: Definition }) {
  return (
    <dl className="grid grid-cols-1 items-baseline gap-x-3 gap-y-1 text-sm sm:grid-cols-[max-content_minmax(0,1fr)]">
      <dt className="text-zinc-600 dark:text-zinc-400">Resolver (Meaning)</dt>
      <dd className={CODE} data-testid="definition-resolve">
        {document.resolve}
      </dd>
      <dt className="text-zinc-600 dark:text-zinc-400">Executor</dt>
      <dd className={CODE} data-testid="definition-executor">
        {document.executor}
      </dd>
    </dl>
  );
}

function Rules({ rules }: { rules: Definition['rules'] }) {
  if (rules.length === 0)
    return (
      <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="definition-rules">
        No rules: the contract and the authority decide alone.
      </p>
    );
  return (
    <ol className="space-y-2" data-testid="definition-rules">
      {rules.map((rule) => (
        <li key={rule.code} data-testid="definition-rule" data-code={rule.code} className="space-y-1 text-sm">
          <p>
            <code className="font-mono text-xs font-medium">{rule.code}</code>:{' '}
            <PayloadText value={rule.message} mono={false} />
          </p>
          <Cel source={rule.require} />
        </li>
      ))}
    </ol>
  );
}

function Authority({ authority }: { authority: Definition['authority'] }) {
  return (
    <div className="space-y-1 text-sm" data-testid="definition-authority">
      {authority.grants.length === 0 ? (
        <p className="text-zinc-600 dark:text-zinc-400">An agent key is granted nothing for it.</p>
      ) : (
        <ul className="list-disc space-y-0.5 pl-5">
          {authority.grants.map((grant) => (
            <li key={grant.name}>
              <code className="font-mono text-xs">{grant.name}</code>: <PayloadText value={grant.label} mono={false} />
              {grant.values ? (
                <span className="text-zinc-600 dark:text-zinc-400">
                  {' '}
                  (one of <span className="font-mono text-xs">{grant.values.join(', ')}</span>)
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      <Cel source={authority.require} />
    </div>
  );
}

/** The earlier versions, newest first, in a disclosure. */
function EarlierVersions({ name, versions }: { name: string; versions: DefinitionVersionView[] }) {
  if (versions.length === 0)
    return (
      <p className="text-xs text-zinc-600 dark:text-zinc-400" data-testid={`definition-versions-${name}`}>
        No earlier versions.
      </p>
    );
  return (
    <details data-testid={`definition-versions-${name}`}>
      <summary className="cursor-pointer text-sm font-medium">Versions ({versions.length} earlier)</summary>
      <ol className="mt-2 space-y-2">
        {versions.map((view) => (
          <li
            key={view.version}
            data-testid="definition-version"
            data-version={view.version}
            className={
              'border-t border-zinc-100 pt-2 text-xs text-zinc-700 first:border-t-0 first:pt-0 ' +
              'dark:border-zinc-800 dark:text-zinc-300'
            }
          >
            <span className="font-mono font-medium">v{view.version}</span>
            {' · '}
            <HashPrefix value={view.documentHash} />
            {' · '}
            <Published view={view} />
            <Note note={view.note} />
          </li>
        ))}
      </ol>
    </details>
  );
}

/**
 * A declared action's definition, read-only: its current version (who published it, when, why),
 * its resolver and executor, its rules and authority, and its earlier versions.
 */
export function ActionDefinition({ view }: { view: ActionDefinitionView }) {
  const [current, ...earlier] = view.versions;
  if (!current) return null;
  return (
    <div className="min-w-0 space-y-3" data-testid={`definition-${view.name}`} data-version={current.version}>
      <p className="text-sm text-zinc-700 dark:text-zinc-300" data-testid="definition-current">
        <span className="font-medium">Definition v{current.version}</span>
        {' · '}
        <HashPrefix value={current.documentHash} />
        {' · published '}
        <Published view={current} />
        <Note note={current.note} />
      </p>
      <Services document={view.document} />
      {/* Grid tracks never grow past the page: a long expression wraps (or scrolls) inside its block. */}
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <section className="min-w-0 space-y-1" aria-label={`${view.name} rules`}>
          <h3 className="text-sm font-semibold">Rules</h3>
          <Rules rules={view.document.rules} />
        </section>
        <section className="min-w-0 space-y-1" aria-label={`${view.name} authority`}>
          <h3 className="text-sm font-semibold">Authority</h3>
          <Authority authority={view.document.authority} />
        </section>
      </div>
      <EarlierVersions name={view.name} versions={earlier} />
    </div>
  );
}
