import Link from 'next/link';
import type { CorpusFigures } from '@/lib/contracts/corpus-figures';
import type { ActionMeasurements, ShadowExample, VersionCounts } from '@/lib/contracts/measurements';
import { RejectionRateChart, TopFieldsChart } from './contract-charts';
import { PayloadText } from './payload-text';
import { Time } from './time';
import { type Column, Table } from './ui/table';

const percent = (part: number, whole: number) => (whole === 0 ? '—' : `${((part / whole) * 100).toFixed(1)} %`);
const ratio = (part: number, whole: number) => (whole === 0 ? '—' : (part / whole).toFixed(2));

function Num({ value, testId }: { value: number; testId: string }) {
  return (
    <span data-testid={testId} className="tabular-nums">
      {value}
    </span>
  );
}

function VersionRow({ counts }: { counts: VersionCounts }) {
  const v = counts.version;
  const rejected =
    counts.rejected.schema + counts.rejected.authorization + counts.rejected.businessRule + counts.rejected.other;
  return (
    <tr data-testid={`measure-v${v}`}>
      <th scope="row" className="px-3 py-1.5 text-left font-mono">
        v{v}
      </th>
      <td className="px-3 py-1.5 text-right">
        <Num value={counts.attempts} testId="m-attempts" />
      </td>
      <td className="px-3 py-1.5 text-right">
        <Num value={counts.accepted} testId="m-accepted" />
      </td>
      <td className="px-3 py-1.5 text-right">
        <Num value={counts.rejected.schema} testId="m-schema" />
      </td>
      <td className="px-3 py-1.5 text-right">
        <Num value={counts.rejected.authorization} testId="m-authorization" />
      </td>
      <td className="px-3 py-1.5 text-right">
        <Num value={counts.rejected.businessRule} testId="m-business" />
      </td>
      <td className="px-3 py-1.5 text-right">
        <Num value={counts.rejected.other} testId="m-other" />
      </td>
      <td className="px-3 py-1.5 text-right tabular-nums" title={`${rejected} of ${counts.attempts}`}>
        {percent(rejected, counts.attempts)}
      </td>
      <td
        className="px-3 py-1.5 text-right tabular-nums"
        data-testid="m-repairs"
        title={`${counts.repairs} repairs over ${counts.originals} original attempts`}
      >
        {ratio(counts.repairs, counts.originals)}
      </td>
      <td
        className="px-3 py-1.5 text-right tabular-nums"
        data-testid="m-repair-success"
        title={`${counts.repairedAccepted} of ${counts.repairedChains} repaired chains ended accepted`}
      >
        {counts.repairedChains === 0 ? '—' : `${counts.repairedAccepted} / ${counts.repairedChains}`}
      </td>
    </tr>
  );
}

const HEAD: Column[] = [
  'version',
  ...[
    'attempts',
    'accepted',
    'schema',
    'authorization',
    'business rule',
    'other',
    'rejected',
    'repairs / original',
    'repaired → accepted',
  ].map((label) => ({ label, numeric: true })),
];

function exampleHref(example: ShadowExample) {
  return example.proposalId
    ? `/proposals/${encodeURIComponent(example.proposalId)}`
    : `/contracts/attempts?attempt=${encodeURIComponent(example.id)}`;
}

function Examples({ examples, testId }: { examples: ShadowExample[]; testId: string }) {
  if (examples.length === 0) return null;
  return (
    <ul className="ml-4 list-disc text-xs" data-testid={testId}>
      {examples.map((example) => (
        <li key={example.id}>
          <Link href={exampleHref(example)} className="underline">
            {example.requestId ? <PayloadText value={example.requestId} /> : example.id}
          </Link>{' '}
          <Time value={example.createdAt} />
          {example.codes.length > 0 ? (
            <span className="text-zinc-500">
              {' '}
              · shadow said <PayloadText value={example.codes.join(', ')} />
            </span>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

/** One action's measurements over the window: counts by kind, repairs, charts, top codes, shadow disagreements. */
export function ActionMeasurementsView({
  measured,
  longWindow,
}: {
  measured: ActionMeasurements;
  longWindow: boolean;
}) {
  const versions = measured.versions.map((v) => v.version);
  return (
    <div className="space-y-4" data-testid={`measurements-${measured.action}`}>
      <Table head={HEAD} caption="Attempts per version, rejections by kind" className="min-w-[40rem]">
        {measured.versions.map((counts) => (
          <VersionRow key={counts.version} counts={counts} />
        ))}
      </Table>
      <div className="grid gap-4 md:grid-cols-2">
        <RejectionRateChart
          points={measured.rate}
          versions={versions}
          longWindow={longWindow}
          testId={`rate-chart-${measured.action}`}
        />
        <TopFieldsChart fields={measured.topFields} versions={versions} testId={`fields-chart-${measured.action}`} />
      </div>
      {measured.topCodes.length > 0 ? (
        <div>
          <h4 className="text-xs font-medium text-zinc-500">Top refusal codes</h4>
          <ul className="text-xs" data-testid={`top-codes-${measured.action}`}>
            {measured.topCodes.map((c) => (
              <li key={`${c.version}-${c.kind}-${c.code}`}>
                <span className="font-mono">v{c.version}</span> · {c.kind} ·{' '}
                <span className="font-mono">
                  <PayloadText value={c.code} />
                </span>{' '}
                · <span className="tabular-nums">{c.count}</span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {measured.shadow.map((s) => (
        <div
          key={s.version}
          data-testid={`shadow-v${s.version}`}
          className="rounded-md border border-violet-200 p-2 text-sm dark:border-violet-900"
        >
          <p>
            Shadow <span className="font-mono">v{s.version}</span> judged{' '}
            <span data-testid="shadow-evaluated" className="tabular-nums">
              {s.evaluated}
            </span>{' '}
            attempts: would refuse{' '}
            <span data-testid="shadow-would-refuse" className="tabular-nums">
              {s.wouldRefuse}
            </span>{' '}
            that passed the deciding contract, would accept{' '}
            <span data-testid="shadow-would-accept" className="tabular-nums">
              {s.wouldAccept}
            </span>{' '}
            that it refused.
          </p>
          <Examples examples={s.wouldRefuseExamples} testId="shadow-refuse-examples" />
          <Examples examples={s.wouldAcceptExamples} testId="shadow-accept-examples" />
        </div>
      ))}
    </div>
  );
}

const CORPUS_HEAD: Column[] = [
  'contract',
  ...['invalid accepted · gates', '· permissive baseline', 'valid rejected · gates', '· permissive baseline'].map(
    (label) => ({ label, numeric: true }),
  ),
];

const CORPUS_COMMAND = <code className="font-mono">npm run corpus</code>;

/** The last `npm run corpus`: the gates beside the permissive baseline, with when it was measured. */
export function CorpusFiguresView({ figures }: { figures: CorpusFigures | undefined }) {
  if (!figures) {
    return (
      <p className="text-sm text-zinc-500" data-testid="corpus-none">
        The corpus has not been run here yet: {CORPUS_COMMAND} writes its figures to{' '}
        <code className="font-mono">corpus/last-run.json</code>.
      </p>
    );
  }
  return (
    <div className="space-y-2" data-testid="corpus-figures">
      <p className="text-xs text-zinc-500">
        Measured <Time value={figures.measuredAt} /> by {CORPUS_COMMAND} on a fresh database with the module&apos;s
        default statuses — the versioned test corpus, not this tenant&apos;s traffic.{' '}
        {figures.passed ? 'Every expectation was met.' : 'That run had failures.'}
      </p>
      <Table
        head={CORPUS_HEAD}
        caption="The corpus: what the gates and a permissive baseline let through"
        className="min-w-[32rem]"
      >
        {figures.suites.map((s) => (
          <tr key={`${s.action}-${s.version}`} data-testid={`corpus-${s.action}-v${s.version}`}>
            <th scope="row" className="px-3 py-1.5 text-left font-mono font-normal">
              {s.action} v{s.version}
            </th>
            <td className="px-3 py-1.5 text-right tabular-nums">
              {s.gates.invalidAccepted} / {s.gates.invalidTotal}
            </td>
            <td className="px-3 py-1.5 text-right tabular-nums text-zinc-500">
              {s.baseline.invalidAccepted} / {s.baseline.invalidTotal} (
              {percent(s.baseline.invalidAccepted, s.baseline.invalidTotal)})
            </td>
            <td className="px-3 py-1.5 text-right tabular-nums">
              {s.gates.validRejected} / {s.gates.validTotal}
            </td>
            <td className="px-3 py-1.5 text-right tabular-nums text-zinc-500">
              {s.baseline.validRejected} / {s.baseline.validTotal}
            </td>
          </tr>
        ))}
      </Table>
    </div>
  );
}
