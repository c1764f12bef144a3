import Link from 'next/link';
import type { ActorShown } from '@/lib/events/actor-label';
import type { GrantView } from '@/lib/grants/list';
import { formatMinor, formatMoney } from '@/lib/money';
import { ActorName } from './actor-name';
import { GrantRevokeButton } from './grant-revoke';
import { PayloadText } from './payload-text';
import { GrantStateChip } from './status-chip';
import { CARD_ROW, CardCell, Table } from './ui/table';
import { ViewerTime } from './viewer-time';

const HEAD = ['State', 'Granted by', 'Covers', 'Used', 'Time', 'Reason', { label: 'Actions', hidden: true }] as const;

/** What a grant approves, in words ("hold_stock proposals of acme-support-bot on sku:filter-blue"). */
export const grantCovers = (grant: GrantView) =>
  `${grant.action} proposals of ${grant.agentName}${grant.resourceKey ? ` on ${grant.resourceKey}` : ''}`;

function totalWords(grant: GrantView): string | null {
  if (!grant.currency) return null;
  return grant.maxTotalMinor === null
    ? `${formatMoney(grant.usedTotalMinor, grant.currency)} (no total cap)`
    : `${formatMinor(grant.usedTotalMinor, grant.currency)} of ${formatMoney(grant.maxTotalMinor, grant.currency)}`;
}

function Ender({ actor }: { actor: ActorShown | undefined }) {
  return actor ? (
    <span className="text-xs text-zinc-600 dark:text-zinc-400">
      {' '}
      by <ActorName id={actor.id} label={actor.label} testId="grant-ended-by" />
    </span>
  ) : null;
}

/**
 * The tenant's standing grants: what each covers, how much of it is used, until when, why it was
 * made and, once ended, who ended it (`endedBy`, by grant id); Revoke where the viewer may
 * (`mayRevoke`: the granter or an admin, active grants only).
 */
export function GrantsTable({
  grants,
  endedBy,
  mayRevoke,
}: {
  grants: GrantView[];
  endedBy: Record<string, ActorShown>;
  mayRevoke: (grant: GrantView) => boolean;
}) {
  return (
    <Table cards head={HEAD} testId="grants" caption="Standing grants, newest first">
      {grants.map((grant) => (
        <tr
          key={grant.id}
          data-testid="grant-row"
          data-grant-id={grant.id}
          data-state={grant.state}
          className={CARD_ROW}
        >
          <CardCell label="State">
            <span className="flex flex-col items-start gap-1">
              <GrantStateChip state={grant.state} />
              <span className="font-mono text-xs text-zinc-500" data-testid="grant-id">
                {grant.id}
              </span>
              {grant.endNote ? (
                <span className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="grant-end-note">
                  “<PayloadText value={grant.endNote} mono={false} />”
                </span>
              ) : null}
            </span>
          </CardCell>
          <CardCell label="Granted by">
            <span className="block font-medium" data-testid="grant-granter">
              <PayloadText value={grant.grantedBy.name ?? 'a former member'} mono={false} />
            </span>
            <span className="block text-xs text-zinc-600 dark:text-zinc-400">
              approving{' '}
              <Link
                href={`/proposals/${encodeURIComponent(grant.proposalId)}`}
                data-testid="grant-proposal-link"
                className="break-all font-mono underline"
              >
                {grant.proposalId}
              </Link>
            </span>
          </CardCell>
          <CardCell label="Covers">
            <span className="block font-mono text-xs" data-testid="grant-action">
              {grant.action}
            </span>
            <span className="block">
              of <PayloadText value={grant.agentName} mono={false} />
            </span>
            <span className="block text-xs text-zinc-600 dark:text-zinc-400" data-testid="grant-resource">
              {grant.resourceKey ? (
                <>
                  on <PayloadText value={grant.resourceKey} />
                </>
              ) : (
                'on any resource'
              )}{' '}
              · rule <span className="font-mono">{grant.rule}</span> v{grant.policyVersion}
            </span>
          </CardCell>
          <CardCell label="Used">
            <span className="block whitespace-nowrap tabular-nums" data-testid="grant-used">
              {grant.usedCount} of {grant.maxCount}
            </span>
            {grant.currency ? (
              <span className="block whitespace-nowrap tabular-nums text-xs" data-testid="grant-used-total">
                {totalWords(grant)}
              </span>
            ) : null}
          </CardCell>
          <CardCell label="Time">
            <span className="block">
              <span className="text-xs text-zinc-600 dark:text-zinc-400">made </span>
              <ViewerTime value={grant.createdAt} testId="grant-created" />
            </span>
            <span className="block">
              <span className="text-xs text-zinc-600 dark:text-zinc-400">until </span>
              <ViewerTime value={grant.expiresAt} testId="grant-expires" />
            </span>
            {grant.endedAt ? (
              <span className="block">
                <span className="text-xs text-zinc-600 dark:text-zinc-400">ended </span>
                <ViewerTime value={grant.endedAt} testId="grant-ended" />
                <Ender actor={endedBy[grant.id]} />
              </span>
            ) : null}
          </CardCell>
          <CardCell label="Reason" wide>
            <span data-testid="grant-reason-text">
              <PayloadText value={grant.reason} mono={false} />
            </span>
          </CardCell>
          <CardCell label="Actions">
            {mayRevoke(grant) ? <GrantRevokeButton grantId={grant.id} covers={grantCovers(grant)} /> : null}
          </CardCell>
        </tr>
      ))}
    </Table>
  );
}
