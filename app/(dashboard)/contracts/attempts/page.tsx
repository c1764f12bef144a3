import type { Metadata } from 'next';
import Link from 'next/link';
import { PayloadBlock, PayloadText } from '@/components/payload-text';
import { absoluteTime } from '@/components/time';
import { dashboardContext } from '@/lib/dashboard/context';
import { getDb } from '@/lib/database';
import { attemptsCursorFromSearch, rejectedAttempts, repairChains } from '@/lib/intake/attempts';
import { MAX_REPAIRS } from '@/lib/intake/repair';
import { isRowId } from '@/lib/paging/fields';

export const metadata: Metadata = { title: 'Rejected attempts' };

type Search = Record<string, string | string[] | undefined>;

export default async function AttemptsPage({ searchParams }: { searchParams: Promise<Search> }) {
  const params = await searchParams;
  const context = await dashboardContext('/contracts/attempts');
  if (!context.tenantId) return null;
  const db = await getDb();
  const exhaustedOnly = params.exhausted === '1';
  const cursor = attemptsCursorFromSearch(params);
  const attemptId = typeof params.attempt === 'string' && isRowId(params.attempt) ? params.attempt : undefined;
  const page = await rejectedAttempts(db, context.tenantId, { cursor, exhaustedOnly, attemptId });
  const exhausted = page.items.filter((a) => a.errorCode === 'repair_limit_reached' && a.agentKeyId && a.rootRequestId);
  const chains = await repairChains(
    db,
    context.tenantId,
    exhausted.map((a) => ({ agentKeyId: a.agentKeyId!, rootRequestId: a.rootRequestId! })),
  );
  const filterLink = (only: boolean) => (only ? '/contracts/attempts?exhausted=1' : '/contracts/attempts');

  return (
    <section aria-labelledby="attempts-heading" className="space-y-4">
      <Link href="/contracts" className="text-sm text-zinc-500 hover:underline">
        ← Contracts
      </Link>
      <h1 id="attempts-heading" className="text-xl font-semibold">
        Rejected attempts
      </h1>
      <p className="text-sm text-zinc-500">
        Requests the gates refused. They never reach the queue; agents may repair a request {MAX_REPAIRS} times. When a
        chain runs out, the agent is told to stop — review the original request here. Bodies are shown as received:
        untrusted text.
      </p>
      <nav className="flex gap-2 text-sm" aria-label="Filter">
        <Link
          href={filterLink(false)}
          aria-current={!exhaustedOnly ? 'page' : undefined}
          className={
            'rounded-full border px-3 py-1 ' +
            (!exhaustedOnly ? 'border-zinc-900 dark:border-zinc-100' : 'border-zinc-300 dark:border-zinc-700')
          }
        >
          All rejections
        </Link>
        <Link
          href={filterLink(true)}
          data-testid="filter-exhausted"
          aria-current={exhaustedOnly ? 'page' : undefined}
          className={
            'rounded-full border px-3 py-1 ' +
            (exhaustedOnly ? 'border-zinc-900 dark:border-zinc-100' : 'border-zinc-300 dark:border-zinc-700')
          }
        >
          Exhausted repair chains
        </Link>
      </nav>
      {page.items.length === 0 ? (
        <p
          data-testid="attempts-empty"
          className="rounded-lg border border-dashed border-zinc-300 p-8 text-center dark:border-zinc-700"
        >
          {exhaustedOnly ? 'No repair chain has run out.' : 'No rejected attempts.'}
        </p>
      ) : (
        <ul className="space-y-2" data-testid="attempts">
          {page.items.map((attempt) => {
            const chain = chains.filter(
              (c) => c.agentKeyId === attempt.agentKeyId && c.rootRequestId === attempt.rootRequestId,
            );
            const original = chain[0];
            return (
              <li
                key={attempt.id}
                data-testid="attempt"
                data-code={attempt.errorCode ?? ''}
                className="rounded-lg border border-zinc-200 bg-white p-3 text-sm dark:border-zinc-800 dark:bg-zinc-900"
              >
                <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
                  <span className="font-mono">{attempt.errorCode}</span>
                  <span className="text-zinc-500">
                    {attempt.httpStatus} · {attempt.errorKind}
                  </span>
                  <span>
                    {attempt.agentName ? <PayloadText value={attempt.agentName} mono={false} /> : 'unknown agent'}
                  </span>
                  <span className="text-xs">
                    {attempt.action ? <PayloadText value={attempt.action} /> : '—'}
                    {attempt.contractVersion ? ` v${attempt.contractVersion}` : ''}
                  </span>
                  <span className="text-xs" data-testid="attempt-request-id">
                    {attempt.requestId ? <PayloadText value={attempt.requestId} /> : '—'}
                  </span>
                  <span className="ml-auto text-xs text-zinc-500">{absoluteTime(attempt.createdAt)}</span>
                </div>
                {attempt.message ? (
                  <p className="mt-1" data-testid="attempt-message">
                    <PayloadText value={attempt.message} mono={false} />
                  </p>
                ) : null}
                {attempt.issues && attempt.issues.length > 0 ? (
                  <p className="mt-1 text-xs text-zinc-500">
                    fields:{' '}
                    <PayloadText value={attempt.issues.map((issue) => `${issue.field} (${issue.code})`).join(', ')} />
                  </p>
                ) : null}
                {original ? (
                  <details className="mt-2" data-testid="attempt-chain">
                    <summary className="cursor-pointer">
                      Repair chain of <PayloadText value={original.requestId ?? '—'} />: {chain.length} attempts —
                      original request
                    </summary>
                    <ol className="mt-2 space-y-2">
                      {chain.map((step) => (
                        <li key={step.id}>
                          <p className="text-xs text-zinc-500">
                            <PayloadText value={step.requestId ?? '—'} /> · {step.errorCode ?? step.outcome} ·{' '}
                            <PayloadText value={step.message ?? ''} mono={false} />
                          </p>
                          {step.rawCandidate ? <PayloadBlock value={step.rawCandidate} testId="attempt-raw" /> : null}
                        </li>
                      ))}
                    </ol>
                  </details>
                ) : attempt.rawCandidate ? (
                  <details className="mt-2">
                    <summary className="cursor-pointer">As received</summary>
                    <PayloadBlock value={attempt.rawCandidate} testId="attempt-raw" />
                  </details>
                ) : null}
              </li>
            );
          })}
        </ul>
      )}
      {page.next ? (
        <Link
          className="underline"
          href={`/contracts/attempts?${new URLSearchParams({
            ...(exhaustedOnly ? { exhausted: '1' } : {}),
            before: page.next.createdAt,
            id: page.next.id,
          }).toString()}`}
        >
          Older →
        </Link>
      ) : null}
    </section>
  );
}
