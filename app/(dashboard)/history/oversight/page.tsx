import type { Metadata } from 'next';
import Link from 'next/link';
import { HistoryHeader } from '@/components/history-tabs';
import { ApproverCharts } from '@/components/oversight-charts';
import { OversightSettingsForm } from '@/components/oversight-settings-form';
import { ActionTable, ApproverTable, ChannelTable } from '@/components/oversight-tables';
import { ViewerTime } from '@/components/viewer-time';
import { dashboardContext } from '@/lib/dashboard/context';
import { getDb } from '@/lib/database';
import { Refusal } from '@/lib/errors/refusal';
import { OVERSIGHT_DEFAULT_DAYS, oversightDays, oversightFigures } from '@/lib/oversight/figures';

export const metadata: Metadata = { title: 'Oversight · History' };

const WINDOWS = [7, 30, 90] as const;

function daysOf(value: string | string[] | undefined): number | undefined {
  try {
    return oversightDays(typeof value === 'string' ? value : null);
  } catch (error) {
    if (error instanceof Refusal) return undefined;
    throw error;
  }
}

/**
 * History → Oversight (docs/oversight.md): how closely people look before they decide, per
 * approver, action and channel, over the last 7, 30 or 90 days; charts for the eye, tables for
 * every number, and the approvers whose figures meet the rubber-stamp thresholds marked.
 */
export default async function OversightPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const context = await dashboardContext('/history/oversight');
  if (!context.tenantId) return null;
  const days = daysOf((await searchParams).days);
  const figures = await oversightFigures(
    await getDb(),
    { userId: context.operator.userId, tenantId: context.tenantId },
    days ?? OVERSIGHT_DEFAULT_DAYS,
  );
  const { settings } = figures;
  const alarmOff =
    settings.minDecisions === 0 || settings.approvalRatePercent === 0 || settings.medianDwellSeconds === 0;
  const empty = figures.approvers.length === 0 && figures.actions.length === 0;

  return (
    <section aria-labelledby="history-heading" className="space-y-4" data-testid="oversight-page">
      <HistoryHeader current="oversight" />
      <p className="text-sm text-zinc-500">
        How closely people in {context.tenantName} look before they decide: from{' '}
        <ViewerTime value={figures.from} testId="oversight-from" /> to{' '}
        <ViewerTime value={figures.to} testId="oversight-to" />. Dwell is the time from a person first opening a
        proposal (its page, the queue preview or the approve dialog, or reading it through the API) to their decision; a
        decision made without opening it counts as zero.
      </p>
      <nav aria-label="Oversight window" className="flex gap-2 text-sm">
        {WINDOWS.map((window) => (
          <Link
            key={window}
            href={`/history/oversight?days=${window}`}
            aria-current={figures.days === window ? 'page' : undefined}
            data-testid={`oversight-days-${window}`}
            className={figures.days === window ? 'font-semibold underline' : 'underline'}
          >
            Last {window} days
          </Link>
        ))}
      </nav>
      {days === undefined ? (
        <p
          role="alert"
          data-testid="oversight-days-error"
          className={
            'rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 ' +
            'dark:bg-amber-950 dark:text-amber-200'
          }
        >
          The window must be a whole number of days from 1 to 90; showing the last {OVERSIGHT_DEFAULT_DAYS} days.
        </p>
      ) : null}
      <p className="text-sm" data-testid="oversight-alarm-settings">
        {alarmOff
          ? 'The rubber-stamp alarm is off (a setting is 0).'
          : `Admins are told, once a week per person, when someone's last 7 days hold at ` +
            `least ${settings.minDecisions} decisions, ${settings.approvalRatePercent} % or more of them ` +
            `approvals, decided a median under ${settings.medianDwellSeconds} s after first opening.`}
      </p>
      {context.role === 'admin' ? <OversightSettingsForm initial={settings} /> : null}
      {empty ? (
        <p
          data-testid="oversight-empty"
          className="rounded-lg border border-dashed border-zinc-300 p-8 text-center dark:border-zinc-700"
        >
          No decisions, expiries or stale proposals in this window.
        </p>
      ) : (
        <>
          <p
            className="text-sm"
            data-testid="oversight-ended"
          >{`${figures.expired} expired and ${figures.stale} went stale undecided in this window.`}</p>
          {figures.approvers.length > 0 ? (
            <>
              <h2 className="text-lg font-semibold">Per approver</h2>
              <ApproverCharts
                rows={figures.approvers.map((row) => ({
                  name: row.name,
                  approvalPercent: Math.round(row.approvalRate * 1000) / 10,
                  dwellSeconds: row.dwellP50Ms === null ? null : Math.round(row.dwellP50Ms / 100) / 10,
                  rubberStamp: row.rubberStamp,
                }))}
              />
              <ApproverTable rows={figures.approvers} />
            </>
          ) : null}
          <h2 className="text-lg font-semibold">Per action</h2>
          <ActionTable rows={figures.actions} />
          {figures.channels.length > 0 ? (
            <>
              <h2 className="text-lg font-semibold">By what brought the person</h2>
              <ChannelTable rows={figures.channels} />
            </>
          ) : null}
        </>
      )}
    </section>
  );
}
