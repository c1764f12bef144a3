'use client';

import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { fetchAgentKeys, type IssuedKey, type Revocation } from '@/lib/client/agent-keys-api';
import { valueOrThrow } from '@/lib/client/operator-api';
import { type ActionOption, AgentKeyForm } from './agent-key-form';
import { AGENT_KEYS_KEY, AgentKeyList, WorksUntil } from './agent-key-list';
import { LoadError, LoadingBlocks, Panel, ShownOnce, StaleNotice } from './notification-ui';
import { Button } from './ui/button';

/** Last use and the end of an overlap change while the page is open: look again every half minute. */
const REFRESH_MS = 30_000;

/** Settings → Agent keys for an admin: the key just issued (once), the create form, and the tenant's keys. */
export function AgentKeysAdmin({ actions }: { actions: ActionOption[] }) {
  const query = useQuery({
    queryKey: AGENT_KEYS_KEY,
    queryFn: async () => valueOrThrow(await fetchAgentKeys()).agentKeys,
    refetchInterval: REFRESH_MS,
  });
  const [issued, setIssued] = useState<IssuedKey | null>(null);
  const [revocation, setRevocation] = useState<Revocation | null>(null);
  const onIssued = (next: IssuedKey) => {
    setIssued(next);
    setRevocation(null);
    void query.refetch();
  };
  const onRevoked = (next: Revocation) => {
    setRevocation(next);
    // A revoked key's "copy it now" panel would offer a key that no longer works.
    if (issued && next.revoked.some((key) => key.id === issued.agentKey.id)) setIssued(null);
  };
  // Revoked elsewhere (another tab, the CLI): the next look at the list hides it too.
  const issuedRevoked =
    issued !== null && query.data?.some((key) => key.id === issued.agentKey.id && key.state === 'revoked') === true;
  return (
    <div className="space-y-8">
      {revocation ? <RevokedNotice revocation={revocation} onDone={() => setRevocation(null)} /> : null}
      {issued && !issuedRevoked ? (
        <ShownOnce
          title={`New key for ${issued.agentKey.agentName}`}
          value={issued.key}
          copyLabel="Copy the agent key"
          testId="agent-key-secret"
          onDone={() => setIssued(null)}
        >
          <p>
            Copy it into your agent’s configuration now: it is not shown again (Countersign keeps only a hash). The
            agent sends it as <code className="font-mono">Authorization: Bearer {issued.agentKey.keyPrefix}…</code>.
          </p>
        </ShownOnce>
      ) : null}
      <Panel title="New key" id="agent-key-new-heading" testId="agent-key-create-panel">
        <AgentKeyForm actions={actions} onIssued={onIssued} />
      </Panel>
      <Panel title="Keys" id="agent-keys-heading" testId="agent-keys-panel">
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Newest first within each agent. Times are in your time zone.
        </p>
        {query.isPending ? (
          <LoadingBlocks testId="agent-keys-loading" label="Loading agent keys" heights={[9, 9]} />
        ) : !query.data ? (
          <LoadError
            testId="agent-keys-error"
            what="The agent keys"
            error={query.error}
            onRetry={() => void query.refetch()}
          />
        ) : (
          <>
            {query.isRefetchError ? <StaleNotice testId="agent-keys-stale" error={query.error} /> : null}
            <AgentKeyList agentKeys={query.data} onIssued={onIssued} onRevoked={onRevoked} />
          </>
        )}
      </Panel>
    </div>
  );
}

/** What a revocation did, and what of the agent still works until when. */
function RevokedNotice({ revocation, onDone }: { revocation: Revocation; onDone: () => void }) {
  const { agentKey, revoked, stillWorking } = revocation;
  return (
    <div
      role="status"
      data-testid="agent-key-revoked-notice"
      className={
        'space-y-2 rounded-md border border-zinc-300 bg-zinc-50 p-3 text-sm dark:border-zinc-700 dark:bg-zinc-900'
      }
    >
      <p className="font-medium">
        {revoked.length === 1 ? (
          <>
            Revoked <span className="font-mono">{revoked[0]!.keyPrefix}…</span> of {agentKey.agentName}.
          </>
        ) : (
          <>
            Stopped {agentKey.agentName}: revoked {revoked.length} keys.
          </>
        )}
      </p>
      {stillWorking.length > 0 ? (
        <div data-testid="agent-key-revoked-still-working">
          <p>{agentKey.agentName} still works with:</p>
          <ul className="list-disc pl-5">
            {stillWorking.map((key) => (
              <WorksUntil key={key.id} agentKey={key} />
            ))}
          </ul>
        </div>
      ) : (
        <p data-testid="agent-key-revoked-none-left">No key of {agentKey.agentName} works any more.</p>
      )}
      <Button variant="secondary" data-testid="agent-key-revoked-done" onClick={onDone}>
        OK
      </Button>
    </div>
  );
}
