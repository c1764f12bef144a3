'use client';

import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { valueOrThrow } from '@/lib/client/operator-api';
import { fetchAgentKeys, type IssuedKey } from '@/lib/client/agent-keys-api';
import { AgentKeyForm, type ActionOption } from './agent-key-form';
import { AGENT_KEYS_KEY, AgentKeyList } from './agent-key-list';
import { LoadError, LoadingBlocks, Panel, ShownOnce, StaleNotice } from './notification-ui';

/** Last use and the end of an overlap change while the page is open: look again every half minute. */
const REFRESH_MS = 30_000;

/** Settings → Agent keys for an admin: the key just issued (once), the create form, and the tenant's keys. */
export function AgentKeysAdmin({ actions }: { actions: ActionOption[] }) {
  const query = useQuery({ queryKey: AGENT_KEYS_KEY, queryFn: async () => valueOrThrow(await fetchAgentKeys()).agentKeys, refetchInterval: REFRESH_MS });
  const [issued, setIssued] = useState<IssuedKey | null>(null);
  const onIssued = (next: IssuedKey) => {
    setIssued(next);
    void query.refetch();
  };
  return (
    <div className="space-y-8">
      {issued ? (
        <ShownOnce title={`New key for ${issued.agentKey.agentName}`} value={issued.key} copyLabel="Copy the agent key" testId="agent-key-secret" onDone={() => setIssued(null)}>
          <p>
            Copy it into your agent’s configuration now: it is not shown again (Countersign keeps only a hash). The agent sends it as{' '}
            <code className="font-mono">Authorization: Bearer {issued.agentKey.keyPrefix}…</code>.
          </p>
        </ShownOnce>
      ) : null}
      <Panel title="New key" id="agent-key-new-heading" testId="agent-key-create-panel">
        <AgentKeyForm actions={actions} onIssued={onIssued} />
      </Panel>
      <Panel title="Keys" id="agent-keys-heading" testId="agent-keys-panel">
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Newest first within each agent. Times are in your time zone.</p>
        {query.isPending ? (
          <LoadingBlocks testId="agent-keys-loading" label="Loading agent keys" heights={[9, 9]} />
        ) : !query.data ? (
          <LoadError testId="agent-keys-error" what="The agent keys" error={query.error} onRetry={() => void query.refetch()} />
        ) : (
          <>
            {query.isRefetchError ? <StaleNotice testId="agent-keys-stale" error={query.error} /> : null}
            <AgentKeyList agentKeys={query.data} onIssued={onIssued} />
          </>
        )}
      </Panel>
    </div>
  );
}
