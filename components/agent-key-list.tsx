'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type KeyboardEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import {
  type AgentKeyView,
  type IssuedKey,
  type Revocation,
  revokeAgentKey,
  rotateAgentKey,
} from '@/lib/client/agent-keys-api';
import { valueOrThrow } from '@/lib/client/operator-api';
import { CARD, ProblemText } from './notification-ui';
import { LocalTime } from './time';
import { Button } from './ui/button';

export const AGENT_KEYS_KEY = ['admin', 'agent-keys'] as const;

/** The overlaps a rotation offers: how long the old key keeps working beside the new one. */
const OVERLAPS = [
  { minutes: 0, label: 'None — the old key stops at once' },
  { minutes: 15, label: '15 minutes' },
  { minutes: 60, label: '1 hour' },
  { minutes: 1440, label: '24 hours' },
] as const;

const STATE_LOOK: Record<AgentKeyView['state'], { word: string; ring: string }> = {
  active: { word: 'active', ring: 'text-green-900 ring-green-300 dark:text-green-200 dark:ring-green-800' },
  expiring: { word: 'expiring', ring: 'text-amber-900 ring-amber-300 dark:text-amber-200 dark:ring-amber-800' },
  expired: { word: 'expired', ring: 'text-zinc-700 ring-zinc-300 dark:text-zinc-300 dark:ring-zinc-700' },
  revoked: { word: 'revoked', ring: 'text-red-900 ring-red-300 dark:text-red-200 dark:ring-red-800' },
};

function useInvalidate() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: AGENT_KEYS_KEY });
}

function Fact({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="flex gap-3 sm:block">
      <dt className="w-24 shrink-0 text-xs uppercase tracking-wide text-zinc-500 sm:w-auto">{label}</dt>
      <dd data-testid={testId} className="min-w-0 break-words">
        {children}
      </dd>
    </div>
  );
}

/** What the key's state means, with the moment it changed (in the viewer's zone). */
function StateLine({ agentKey }: { agentKey: AgentKeyView }) {
  if (agentKey.revokedAt)
    return (
      <>
        Revoked <LocalTime value={agentKey.revokedAt} />
      </>
    );
  if (agentKey.expiresAt)
    return (
      <>
        {agentKey.state === 'expiring' ? 'Rotated; works until' : 'Rotated; stopped'}{' '}
        <LocalTime value={agentKey.expiresAt} />
      </>
    );
  return <>Active</>;
}

/** Escape closes a confirmation panel, as Cancel does. */
const closeOnEscape = (onClose: () => void) => (event: KeyboardEvent<HTMLElement>) => {
  if (event.key === 'Escape') onClose();
};

/** Whether a key still authenticates: active, or rotated and still in its overlap. */
const works = (agentKey: AgentKeyView) => agentKey.state === 'active' || agentKey.state === 'expiring';

/** One of the agent's keys that still works, and until when (in the viewer's zone). */
export function WorksUntil({ agentKey }: { agentKey: AgentKeyView }) {
  return (
    <li>
      <span className="font-mono">{agentKey.keyPrefix}…</span>{' '}
      {agentKey.expiresAt ? (
        <>
          (rotated) works until <LocalTime value={agentKey.expiresAt} />
        </>
      ) : (
        <>(active) works until it is revoked</>
      )}
    </li>
  );
}

/**
 * Revoking a key says what of the agent still works and until when — after a rotation, revoking the
 * newest key leaves the old one working to the end of its overlap — and offers to stop the agent:
 * every key of it that still works.
 */
function RevokeConfirm({
  agentKey,
  others,
  onClose,
  onRevoked,
}: {
  agentKey: AgentKeyView;
  others: AgentKeyView[];
  onClose: () => void;
  onRevoked: (revocation: Revocation) => void;
}) {
  const invalidate = useInvalidate();
  const revoke = useMutation({
    mutationFn: async (scope: 'key' | 'agent') => valueOrThrow(await revokeAgentKey(agentKey.id, scope)),
    onSuccess: (revocation) => {
      onClose();
      onRevoked(revocation);
    },
    onSettled: invalidate,
  });
  const stillWorking = others.filter(works);
  return (
    <div
      role="group"
      aria-label={`Revoke ${agentKey.keyPrefix}…`}
      data-testid="agent-key-revoke-panel"
      onKeyDown={closeOnEscape(onClose)}
      className="space-y-2 rounded-md border border-red-300 p-3 text-sm dark:border-red-800"
    >
      <p>
        Revoke <span className="font-mono">{agentKey.keyPrefix}…</span> of <strong>{agentKey.agentName}</strong>? Every
        request with it is refused (401) from now on, and its proposals that still wait go stale when someone decides
        them.
      </p>
      {stillWorking.length > 0 ? (
        <div
          data-testid="agent-key-revoke-still-working"
          className="rounded-md bg-amber-50 p-2 text-amber-950 dark:bg-amber-950 dark:text-amber-100"
        >
          <p className="font-medium">
            {agentKey.agentName} keeps working after this with{' '}
            {stillWorking.length === 1 ? 'another key' : `${stillWorking.length} other keys`}:
          </p>
          <ul className="list-disc pl-5">
            {stillWorking.map((other) => (
              <WorksUntil key={other.id} agentKey={other} />
            ))}
          </ul>
          <p>To stop the agent now, revoke every key of it.</p>
        </div>
      ) : null}
      <ProblemText error={revoke.error} testId="agent-key-revoke-error" />
      <div className="flex flex-wrap gap-2">
        {stillWorking.length > 0 ? (
          <Button
            variant="destructive"
            data-testid="agent-key-stop-agent"
            ref={(el) => el?.focus()}
            disabled={revoke.isPending}
            onClick={() => revoke.mutate('agent')}
          >
            {revoke.isPending && revoke.variables === 'agent'
              ? 'Stopping…'
              : `Stop ${agentKey.agentName}: revoke all ${stillWorking.length + 1} keys`}
          </Button>
        ) : null}
        <Button
          variant={stillWorking.length > 0 ? 'secondary' : 'destructive'}
          data-testid="agent-key-revoke-confirm"
          ref={stillWorking.length > 0 ? undefined : (el) => el?.focus()}
          disabled={revoke.isPending}
          onClick={() => revoke.mutate('key')}
        >
          {revoke.isPending && revoke.variables === 'key'
            ? 'Revoking…'
            : stillWorking.length > 0
              ? 'Revoke this key only'
              : 'Revoke key'}
        </Button>
        <Button variant="secondary" data-testid="agent-key-revoke-cancel" onClick={onClose}>
          Cancel
        </Button>
      </div>
    </div>
  );
}

function RotateChooser({
  agentKey,
  onClose,
  onIssued,
}: {
  agentKey: AgentKeyView;
  onClose: () => void;
  onIssued: (issued: IssuedKey) => void;
}) {
  const invalidate = useInvalidate();
  const [overlap, setOverlap] = useState(60);
  const rotate = useMutation({
    mutationFn: async () => valueOrThrow(await rotateAgentKey(agentKey.id, overlap)),
    onSuccess: (issued) => {
      onClose();
      onIssued(issued);
    },
    onSettled: invalidate,
  });
  return (
    <form
      aria-label={`Rotate ${agentKey.keyPrefix}…`}
      data-testid="agent-key-rotate-panel"
      onKeyDown={closeOnEscape(onClose)}
      className="space-y-2 rounded-md border border-zinc-300 p-3 text-sm dark:border-zinc-700"
      onSubmit={(event) => {
        event.preventDefault();
        rotate.mutate();
      }}
    >
      <fieldset className="space-y-1">
        <legend className="font-medium">
          A new key for {agentKey.agentName}, same actions and grants. How long may the old key keep working?
        </legend>
        {OVERLAPS.map((option) => (
          <label
            key={option.minutes}
            htmlFor={`rotate-${agentKey.id}-${option.minutes}`}
            className="flex items-center gap-2"
          >
            <input
              id={`rotate-${agentKey.id}-${option.minutes}`}
              data-testid={`agent-key-overlap-${option.minutes}`}
              type="radio"
              name={`overlap-${agentKey.id}`}
              checked={overlap === option.minutes}
              onChange={() => setOverlap(option.minutes)}
            />
            {option.label}
          </label>
        ))}
      </fieldset>
      <ProblemText error={rotate.error} testId="agent-key-rotate-error" />
      <div className="flex flex-wrap gap-2">
        <Button variant="primary" type="submit" data-testid="agent-key-rotate-confirm" disabled={rotate.isPending}>
          {rotate.isPending ? 'Rotating…' : 'Rotate key'}
        </Button>
        <Button variant="secondary" data-testid="agent-key-rotate-cancel" onClick={onClose}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

type KeyEvents = { onIssued: (issued: IssuedKey) => void; onRevoked: (revocation: Revocation) => void };

function AgentKeyCard({
  agentKey,
  others,
  onIssued,
  onRevoked,
}: { agentKey: AgentKeyView; others: AgentKeyView[] } & KeyEvents) {
  const [open, setOpen] = useState<'revoke' | 'rotate' | null>(null);
  // Closing a panel puts the keyboard back on the button that opened it, not on the page's start.
  const revokeButton = useRef<HTMLButtonElement>(null);
  const rotateButton = useRef<HTMLButtonElement>(null);
  const closedFrom = useRef<'revoke' | 'rotate' | null>(null);
  const close = () => {
    closedFrom.current = open;
    setOpen(null);
  };
  useEffect(() => {
    if (open !== null || !closedFrom.current) return;
    (closedFrom.current === 'revoke' ? revokeButton : rotateButton).current?.focus();
    closedFrom.current = null;
  });
  const look = STATE_LOOK[agentKey.state];
  const grants = Object.entries(agentKey.grants)
    .map(([name, values]) => `${name}: ${values.join(', ')}`)
    .join('; ');
  const live = agentKey.state === 'active' || agentKey.state === 'expiring';
  return (
    <li data-testid="agent-key" data-key-id={agentKey.id} data-state={agentKey.state} className={`space-y-3 ${CARD}`}>
      <div className="flex flex-wrap items-center gap-2">
        <span data-testid="agent-key-name-text" className="font-semibold break-all">
          {agentKey.agentName}
        </span>
        <span data-testid="agent-key-prefix" className="font-mono text-xs text-zinc-600 dark:text-zinc-400">
          {agentKey.keyPrefix}…
        </span>
        <span
          data-testid="agent-key-state"
          className={`ml-auto rounded-full px-2.5 py-0.5 text-xs font-medium ring-1 ${look.ring}`}
        >
          {look.word}
        </span>
      </div>
      <dl className="grid gap-2 text-sm sm:grid-cols-3">
        <Fact label="Actions">
          <span className="font-mono text-xs">{agentKey.actions.join(', ')}</span>
        </Fact>
        <Fact label="Grants">
          <span className="font-mono text-xs">{grants || '—'}</span>
        </Fact>
        <Fact label="State" testId="agent-key-state-line">
          <StateLine agentKey={agentKey} />
        </Fact>
        <Fact label="Created">
          <LocalTime value={agentKey.createdAt} />
        </Fact>
        <Fact label="Last used" testId="agent-key-last-used">
          {agentKey.lastUsedAt ? <LocalTime value={agentKey.lastUsedAt} /> : 'Never'}
        </Fact>
      </dl>
      {live && open === null ? (
        <div className="flex flex-wrap gap-2">
          {agentKey.state === 'active' ? (
            <Button
              variant="secondary"
              data-testid="agent-key-rotate"
              ref={rotateButton}
              onClick={() => setOpen('rotate')}
            >
              Rotate…
            </Button>
          ) : null}
          <Button
            variant="secondary"
            data-testid="agent-key-revoke"
            ref={revokeButton}
            onClick={() => setOpen('revoke')}
          >
            {agentKey.state === 'expiring' ? 'Revoke now…' : 'Revoke…'}
          </Button>
        </div>
      ) : null}
      {open === 'revoke' ? (
        <RevokeConfirm agentKey={agentKey} others={others} onClose={close} onRevoked={onRevoked} />
      ) : null}
      {open === 'rotate' ? <RotateChooser agentKey={agentKey} onClose={close} onIssued={onIssued} /> : null}
    </li>
  );
}

/** The tenant's keys, each with its state, last use and what an admin may do with it. */
export function AgentKeyList({ agentKeys, onIssued, onRevoked }: { agentKeys: AgentKeyView[] } & KeyEvents) {
  if (agentKeys.length === 0) {
    return (
      <p
        data-testid="agent-keys-empty"
        className="rounded-lg border border-dashed border-zinc-300 p-6 text-center text-sm dark:border-zinc-700"
      >
        No agent keys yet. Create one above and give it to your agent: it sends it as{' '}
        <code className="font-mono">Authorization: Bearer …</code> with every proposal.
      </p>
    );
  }
  return (
    <ul className="space-y-3" data-testid="agent-keys-list">
      {agentKeys.map((agentKey) => (
        <AgentKeyCard
          key={agentKey.id}
          agentKey={agentKey}
          others={agentKeys.filter((other) => other.agentName === agentKey.agentName && other.id !== agentKey.id)}
          onIssued={onIssued}
          onRevoked={onRevoked}
        />
      ))}
    </ul>
  );
}
