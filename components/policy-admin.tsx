'use client';

import { useQuery } from '@tanstack/react-query';
import { valueOrThrow } from '@/lib/client/operator-api';
import { fetchPolicies } from '@/lib/client/policies-api';
import type { PolicyView } from '@/lib/policy/requests';
import { CARD, LoadError } from './notification-ui';
import { RulesInWords } from './policy-diff';
import { POLICIES_KEY, PolicyEditor } from './policy-editor';
import { ViewerTime } from './viewer-time';

/** `money`: the numeric fields holding minor units; `currency`: the one their bounds are typed in at first. */
export type ActionOption = {
  name: string;
  title: string;
  fields: string[];
  money: string[];
  currency: string;
  sampleArgs: Record<string, unknown>;
};

function Skeleton() {
  return (
    <div
      data-testid="policies-loading"
      role="status"
      aria-busy="true"
      aria-label="Loading routing policies"
      className="space-y-4"
    >
      {[16, 20].map((rem, i) => (
        <div
          key={i}
          className="animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800"
          style={{ height: `${rem}rem` }}
        />
      ))}
    </div>
  );
}

/** Which version this is and who published it, when (in the viewer's zone), and why. */
function VersionLine({ view }: { view: PolicyView }) {
  if (view.version === 0)
    return (
      <p data-testid="policy-version" data-version={0} className="text-sm text-zinc-600 dark:text-zinc-400">
        Built-in defaults (v0): nobody has published a version in this tenant yet.
      </p>
    );
  return (
    <p data-testid="policy-version" data-version={view.version} className="text-sm text-zinc-600 dark:text-zinc-400">
      v{view.version} · published by{' '}
      {view.createdBy ? `${view.createdBy.name} (${view.createdBy.email})` : 'the system (seed)'}
      {view.createdAt ? (
        <>
          {' '}
          · <ViewerTime value={view.createdAt} />
        </>
      ) : null}{' '}
      · expires pending proposals after {view.expiryHours} h
      {view.note !== null ? (
        <span data-testid="policy-version-note" className="block whitespace-pre-wrap break-words">
          Why: “{view.note}”
        </span>
      ) : null}
    </p>
  );
}

/** Settings → Routing policies: an editor per action for admins, the current rules in words for everyone else. */
export function PolicyAdmin({ actions, canEdit }: { actions: ActionOption[]; canEdit: boolean }) {
  const query = useQuery({ queryKey: POLICIES_KEY, queryFn: async () => valueOrThrow(await fetchPolicies()) });
  if (query.isPending) return <Skeleton />;
  if (!query.data) {
    return (
      <LoadError
        what="The routing policies"
        error={query.error}
        onRetry={() => void query.refetch()}
        testId="policies-error"
      />
    );
  }
  if (query.data.policies.length === 0)
    return <p data-testid="policies-empty">No actions are registered, so there is nothing to route.</p>;
  return (
    <div className="space-y-8">
      {query.data.policies.map((view) => {
        const action = actions.find((each) => each.name === view.action);
        return (
          <section
            key={view.action}
            aria-labelledby={`policy-${view.action}-heading`}
            data-testid={`policy-${view.action}`}
            className={`space-y-3 ${CARD}`}
          >
            <div className="space-y-1">
              <h2 id={`policy-${view.action}-heading`} className="text-lg font-semibold">
                {action?.title ?? view.action} <span className="font-mono text-sm font-normal">{view.action}</span>
              </h2>
              <VersionLine view={view} />
            </div>
            {canEdit ? (
              <PolicyEditor
                view={view}
                fields={action?.fields ?? []}
                money={action?.money ?? []}
                currency={action?.currency ?? 'USD'}
                sampleArgs={action?.sampleArgs ?? {}}
              />
            ) : (
              <RulesInWords rules={view.rules} />
            )}
          </section>
        );
      })}
    </div>
  );
}
