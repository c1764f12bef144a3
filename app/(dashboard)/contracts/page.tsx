import type { Metadata } from 'next';
import Link from 'next/link';
import { ActionDefinition, type ActionDefinitionView } from '@/components/action-definition';
import { DefinitionEditor } from '@/components/action-definition-editor';
import { documentText } from '@/components/action-examples';
import { NewActionEditor } from '@/components/action-new';
import { ContractLintView } from '@/components/contract-lint';
import { ActionMeasurementsView, CorpusFiguresView } from '@/components/contract-measurements';
import { ContractRolloutControls } from '@/components/contract-rollout-controls';
import { EvidenceResolverSetting } from '@/components/evidence-resolver-setting';
import { PayloadText } from '@/components/payload-text';
import { ContractStatusChip } from '@/components/status-chip';
import { Time } from '@/components/time';
import { ViewerZone } from '@/components/viewer-time';
import { lastCorpusFigures } from '@/lib/contracts/corpus-figures';
import { contractDocuments } from '@/lib/contracts/documents';
import { lintContracts, RUNTIMES, type RuntimeName } from '@/lib/contracts/lint';
import { contractMeasurements } from '@/lib/contracts/measurements';
import { contractRollout, SENDERS_WINDOW_DAYS } from '@/lib/contracts/senders';
import { MEASUREMENT_WINDOWS, type MeasurementWindow, measurementWindow } from '@/lib/contracts/windows';
import { dashboardContext } from '@/lib/dashboard/context';
import { getDb } from '@/lib/database';
import { tenantActions } from '@/lib/definitions/catalog';
import { tenantEvidenceResolver } from '@/lib/definitions/evidence-resolver';
import { definitionViews } from './definitions';

export const metadata: Metadata = { title: 'Contracts' };

const CARD = 'rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900';

type Search = Record<string, string | string[] | undefined>;

function WindowNav({ current }: { current: MeasurementWindow }) {
  return (
    <nav aria-label="Measurement window" className="flex flex-wrap gap-1 text-sm">
      {(Object.keys(MEASUREMENT_WINDOWS) as MeasurementWindow[]).map((key) => (
        <Link
          key={key}
          href={`/contracts?window=${key}`}
          data-testid={`window-${key}`}
          aria-current={key === current ? 'page' : undefined}
          className={
            'rounded-full border px-3 py-0.5 ' +
            (key === current
              ? 'border-zinc-900 font-medium dark:border-zinc-100'
              : 'border-zinc-300 dark:border-zinc-700')
          }
        >
          {MEASUREMENT_WINDOWS[key].label}
        </Link>
      ))}
    </nav>
  );
}

/** A declared action's definition, and for admins its next version's draft; a shipped action says it has none. */
function DefinitionPart({ view, isAdmin }: { view: ActionDefinitionView | undefined; isAdmin: boolean }) {
  if (!view)
    return (
      <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="definition-shipped">
        Shipped with Countersign: no definition of this tenant&apos;s to show or publish.
      </p>
    );
  return (
    <>
      <ActionDefinition view={view} />
      {isAdmin ? (
        <details data-testid={`definition-publish-${view.name}`}>
          <summary className="cursor-pointer text-sm font-medium">Publish a new version</summary>
          <div className="mt-3">
            <DefinitionEditor initial={documentText(view.document)} label={`${view.name}: the next version`} />
          </div>
        </details>
      ) : null}
    </>
  );
}

export default async function ContractsPage({ searchParams }: { searchParams: Promise<Search> }) {
  const context = await dashboardContext('/contracts');
  if (!context.tenantId) return null;
  const window = measurementWindow((await searchParams).window);
  const db = await getDb();
  const actions = await tenantActions(db, context.tenantId);
  const [rollout, measurements, figures, definitions, evidenceResolver] = await Promise.all([
    contractRollout(db, context.tenantId, actions),
    contractMeasurements(db, context.tenantId, actions, window),
    lastCorpusFigures(),
    definitionViews(db, context.tenantId),
    tenantEvidenceResolver(db, context.tenantId),
  ]);
  // A definition named as a shipped action, or one that no longer parses, is not what intake reads.
  const declared = (name: string) => actions.some((a) => a.name === name && a.definitionVersion !== undefined);
  const unused = definitions.filter((view) => !declared(view.name));
  const documents = contractDocuments(actions);
  const lint = lintContracts(documents);
  const runtimeLabels = Object.fromEntries(
    Object.entries(RUNTIMES).map(([name, runtime]) => [name, runtime.label]),
  ) as Record<RuntimeName, string>;
  const isAdmin = context.role === 'admin';
  const longWindow = window === '7d' || window === '30d';

  return (
    <section aria-labelledby="contracts-heading" className="space-y-4">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 id="contracts-heading" className="text-xl font-semibold">
          Contracts
        </h1>
        <Link href="/contracts/attempts" data-testid="rejected-attempts-link" className="text-sm underline">
          Rejected attempts and exhausted repair chains →
        </Link>
      </div>
      <p className="text-sm text-zinc-500">
        Each action&apos;s closed argument schema, per version, with this tenant&apos;s rollout: <em>current</em>{' '}
        decides, <em>supported</em> is still accepted (agents get
        <code className="font-mono"> Deprecation</code> and, once set, <code className="font-mono">Sunset</code>{' '}
        headers), <em>shadow</em> is judged beside every request but never decides,
        <em> retired</em> is refused. Agents fetch the same documents from{' '}
        <code className="font-mono">GET /api/v1/contracts</code>.
      </p>
      <p className="text-sm text-zinc-500">
        A declared action also shows its definition: who published which version and why, the resolver and executor
        Countersign calls, its rules and authority.{' '}
        {isAdmin
          ? 'Publishing a version starts with a plan of what it would change.'
          : 'Admins publish new versions here.'}
      </p>
      {definitions.length > 0 ? <ViewerZone /> : null}
      <section aria-labelledby="evidence-heading" className={`space-y-2 ${CARD}`}>
        <h2 id="evidence-heading" className="font-semibold">
          Evidence
        </h2>
        <EvidenceResolverSetting resolver={evidenceResolver} canEdit={isAdmin} />
      </section>
      {isAdmin ? (
        <details data-testid="definition-new" className={CARD}>
          <summary className="cursor-pointer font-semibold">Add an action</summary>
          <div className="mt-3">
            <NewActionEditor />
          </div>
        </details>
      ) : null}
      <div className="flex flex-wrap items-center gap-2">
        <span className="text-sm text-zinc-500">Measured over the last</span>
        <WindowNav current={window} />
      </div>
      {rollout.map((action) => {
        const document = documents.actions.find((d) => d.action === action.action);
        const measured = measurements.actions.find((m) => m.action === action.action);
        return (
          <article key={action.action} className={`space-y-4 ${CARD}`} data-testid={`contract-${action.action}`}>
            <h2 className="font-semibold">
              <span className="font-mono">{action.action}</span> · {action.title}
              {document ? (
                <>
                  {' '}
                  · scope <span className="font-mono">{document.scope}</span>
                </>
              ) : null}
            </h2>
            <DefinitionPart view={definitions.find((view) => view.name === action.action)} isAdmin={isAdmin} />
            <h3 className="text-sm font-semibold">Contract versions</h3>
            <ul className="space-y-3">
              {action.versions.map((version) => (
                <li
                  key={version.version}
                  data-testid={`version-${action.action}-v${version.version}`}
                  className="space-y-1 border-t border-zinc-100 pt-2 first:border-t-0 first:pt-0 dark:border-zinc-800"
                >
                  <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
                    <span className="font-mono font-medium">v{version.version}</span>
                    <ContractStatusChip status={version.status} />
                    {version.since ? (
                      <span className="text-xs text-zinc-500">
                        since <Time value={version.since} />
                      </span>
                    ) : (
                      <span className="text-xs text-zinc-500">module default</span>
                    )}
                    {version.sunsetAt ? (
                      <span className="text-xs text-amber-800 dark:text-amber-300" data-testid="sunset">
                        sunset <Time value={version.sunsetAt} />
                      </span>
                    ) : null}
                  </div>
                  <p className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="senders">
                    {version.senders.length === 0 ? (
                      `No agent sent v${version.version} in the last ${SENDERS_WINDOW_DAYS} days.`
                    ) : (
                      <>
                        Sent in the last {SENDERS_WINDOW_DAYS} days by{' '}
                        {version.senders.map((sender, index) => (
                          <span key={sender.agentKeyId} data-testid="sender">
                            {index > 0 ? ', ' : ''}
                            <PayloadText value={sender.agentName} mono={false} /> ({sender.attempts}, last{' '}
                            <Time value={sender.lastAt} />)
                          </span>
                        ))}
                      </>
                    )}
                  </p>
                  {isAdmin ? (
                    <ContractRolloutControls
                      action={action.action}
                      version={version.version}
                      status={version.status}
                      sunsetAt={version.sunsetAt}
                    />
                  ) : null}
                  {(() => {
                    const linted = lint.find((l) => l.action === action.action && l.version === version.version);
                    return linted ? <ContractLintView lint={linted} runtimeLabels={runtimeLabels} /> : null;
                  })()}
                  {document ? (
                    <details>
                      <summary className="cursor-pointer text-xs text-zinc-500">
                        JSON Schema of v{version.version}
                      </summary>
                      <pre className="mt-2 overflow-x-auto rounded bg-zinc-100 p-3 text-xs dark:bg-zinc-800">
                        <code>
                          {JSON.stringify(document.versions.find((v) => v.version === version.version)?.input, null, 2)}
                        </code>
                      </pre>
                    </details>
                  ) : null}
                </li>
              ))}
            </ul>
            {measured ? (
              <div className="space-y-2">
                <h3 className="text-sm font-semibold">Measurements · last {MEASUREMENT_WINDOWS[window].label}</h3>
                <ActionMeasurementsView measured={measured} longWindow={longWindow} />
              </div>
            ) : null}
          </article>
        );
      })}
      {unused.map((view) => (
        <article key={view.name} className={`space-y-3 ${CARD}`} data-testid={`contract-unused-${view.name}`}>
          <h2 className="font-semibold">
            <span className="font-mono">{view.name}</span> · {view.document.title} · not in use
          </h2>
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            Intake does not read this definition: Countersign ships an action of this name (which keeps it), or the
            stored document no longer parses.
          </p>
          <DefinitionPart view={view} isAdmin={isAdmin} />
        </article>
      ))}
      <article className={`space-y-2 ${CARD}`}>
        <h2 className="font-semibold">Corpus: the gates beside a permissive baseline</h2>
        <CorpusFiguresView figures={figures} />
      </article>
    </section>
  );
}
