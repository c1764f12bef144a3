'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { DeliveryChip } from '@/components/status-chip';
import {
  type ChannelView,
  createChannel,
  type DeliveryView,
  sendTest,
  updateChannel,
} from '@/lib/client/notifications-api';
import { valueOrThrow } from '@/lib/client/operator-api';
import type { ChannelKindForm } from '@/lib/notifications/kinds/types';
import { CARD, CardForm, type EventOption, EventsFieldset, ProblemText, ShownOnce } from './notification-ui';
import { Button } from './ui/button';
import { Input } from './ui/input';
import { Select } from './ui/select';

export const NOTIFICATIONS_KEY = ['admin', 'notifications'] as const;

type Kind = ChannelView['kind'];

function useInvalidate() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: NOTIFICATIONS_KEY });
}

/** The outcome of "Send a test", in words beside the chip. */
function TestResult({ delivery }: { delivery: DeliveryView }) {
  const details = [
    delivery.lastStatus !== null ? `HTTP ${delivery.lastStatus}` : null,
    delivery.latencyMs !== null ? `${delivery.latencyMs} ms` : null,
    delivery.lastError,
    delivery.status === 'pending' ? 'the worker will retry it' : null,
  ].filter(Boolean);
  return (
    <p
      role="status"
      data-testid="channel-test-result"
      data-status={delivery.status}
      className="flex flex-wrap items-center gap-2 text-sm"
    >
      <span>Test:</span>
      <DeliveryChip status={delivery.status} />
      <span className="font-mono text-xs">{details.join(' · ')}</span>
    </p>
  );
}

function ChannelCard({
  channel,
  kind,
  events,
}: {
  channel: ChannelView;
  kind: ChannelKindForm;
  events: EventOption[];
}) {
  const invalidate = useInvalidate();
  const [editing, setEditing] = useState(false);
  const [target, setTarget] = useState('');
  const [selected, setSelected] = useState<string[]>(channel.events);
  const [digest, setDigest] = useState(String(channel.digestThreshold));
  const test = useMutation({
    mutationFn: async () => valueOrThrow(await sendTest(channel.id)).delivery,
    onSettled: invalidate,
  });
  const change = useMutation({
    mutationFn: async (patch: Parameters<typeof updateChannel>[1]) =>
      valueOrThrow(await updateChannel(channel.id, patch)),
    onSuccess: () => setEditing(false),
    onSettled: invalidate,
  });
  const fieldId = `channel-${channel.id}`;

  return (
    <li
      data-testid="channel"
      data-channel-id={channel.id}
      data-kind={channel.kind}
      data-enabled={channel.enabled}
      className={`space-y-3 ${CARD}`}
    >
      <div className="flex flex-wrap items-center gap-2">
        <span className="rounded bg-zinc-100 px-2 py-0.5 text-xs font-medium uppercase tracking-wide dark:bg-zinc-800">
          {kind.label}
        </span>
        <span data-testid="channel-target" className="min-w-0 break-all font-mono text-sm">
          {channel.target}
        </span>
        <span
          data-testid="channel-state"
          className={
            'ml-auto rounded-full px-2.5 py-0.5 text-xs font-medium ring-1 ' +
            (channel.enabled
              ? 'text-green-900 ring-green-300 dark:text-green-200 dark:ring-green-800'
              : 'text-zinc-700 ring-zinc-300 dark:text-zinc-300 dark:ring-zinc-700')
          }
        >
          {channel.enabled ? 'enabled' : 'disabled'}
        </span>
      </div>
      <p className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="channel-events">
        {channel.events.length === events.length ? 'All events' : channel.events.join(', ')}
      </p>
      <p className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="channel-digest">
        {digestWords(channel.digestThreshold)}
      </p>
      {editing ? (
        <form
          aria-label={`Edit ${kind.label} channel`}
          className="space-y-3"
          onSubmit={(event) => {
            event.preventDefault();
            // The server checks the number (a whole number 0–100) and says what is wrong; left empty, it stays as it
            // is.
            change.mutate({
              ...(target !== '' ? { target } : {}),
              events: selected,
              ...(digest.trim() !== '' ? { digestThreshold: Number(digest) } : {}),
            });
          }}
        >
          <label htmlFor={`${fieldId}-target`} className="block text-sm font-medium">
            Target
            <Input
              id={`${fieldId}-target`}
              data-testid="channel-edit-target"
              value={target}
              placeholder={
                kind.targetShownInPart ? `Leave empty to keep the current ${kind.targetLabel}` : kind.placeholder
              }
              onChange={(e) => setTarget(e.target.value)}
              className="mt-1 font-mono"
              autoComplete="off"
            />
          </label>
          <EventsFieldset events={events} selected={selected} onChange={setSelected} idPrefix={`${fieldId}-edit`} />
          <div>
            {/* Checked by the server (a whole number 0–100), which says what is wrong: no browser-only limits. */}
            <label htmlFor={`${fieldId}-digest`} className="block text-sm font-medium">
              Digest above
              <Input
                id={`${fieldId}-digest`}
                data-testid="channel-edit-digest"
                inputMode="numeric"
                value={digest}
                onChange={(e) => setDigest(e.target.value)}
                aria-describedby={`${fieldId}-digest-hint`}
                className="mt-1 w-24"
                autoComplete="off"
              />
            </label>
            <p id={`${fieldId}-digest-hint`} className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
              More messages than this within a minute, and the rest of that minute arrive as one digest. 0 sends each on
              its own.
            </p>
          </div>
          <ProblemText error={change.error} testId="channel-edit-error" />
          <div className="flex flex-wrap gap-2">
            <Button variant="primary" type="submit" data-testid="channel-save" disabled={change.isPending}>
              {change.isPending ? 'Saving…' : 'Save changes'}
            </Button>
            <Button variant="secondary" data-testid="channel-edit-cancel" onClick={() => setEditing(false)}>
              Cancel
            </Button>
          </div>
        </form>
      ) : (
        <div className="flex flex-wrap gap-2">
          <Button variant="primary" data-testid="channel-test" disabled={test.isPending} onClick={() => test.mutate()}>
            {test.isPending ? 'Sending…' : 'Send a test'}
          </Button>
          <Button
            variant="secondary"
            data-testid="channel-edit"
            onClick={() => {
              setTarget(kind.targetShownInPart ? '' : channel.target);
              setSelected(channel.events);
              setDigest(String(channel.digestThreshold));
              change.reset();
              setEditing(true);
            }}
          >
            Edit
          </Button>
          <Button
            variant="secondary"
            data-testid="channel-toggle"
            disabled={change.isPending}
            onClick={() => change.mutate({ enabled: !channel.enabled })}
          >
            {channel.enabled ? 'Disable' : 'Enable'}
          </Button>
        </div>
      )}
      {!editing ? <ProblemText error={change.error} testId="channel-error" /> : null}
      {test.data ? <TestResult delivery={test.data} /> : null}
      <ProblemText error={test.error} testId="channel-test-error" />
    </li>
  );
}

/** The channel's digest setting in words. */
function digestWords(threshold: number): string {
  return threshold === 0
    ? 'Every message on its own (no digest)'
    : `More than ${threshold} a minute arrive as one digest`;
}

/** A webhook's signing secret, shown once after adding it. */
function SecretNotice({ secret, onDone }: { secret: string; onDone: () => void }) {
  return (
    <ShownOnce
      title="Signing secret for the new webhook"
      value={secret}
      copyLabel="Copy the signing secret"
      testId="channel-secret"
      onDone={onDone}
    >
      <p>
        Copy it into your receiver now: it will not be shown again. Your receiver verifies each request’s{' '}
        <code className="font-mono">webhook-signature</code> with it.
      </p>
    </ShownOnce>
  );
}

function AddChannelForm({ kinds, events }: { kinds: ChannelKindForm[]; events: EventOption[] }) {
  const invalidate = useInvalidate();
  const [kind, setKind] = useState<Kind>(kinds[0]!.kind);
  const [target, setTarget] = useState('');
  const [selected, setSelected] = useState<string[]>(() => events.map((e) => e.name));
  const [secret, setSecret] = useState<string | null>(null);
  const add = useMutation({
    mutationFn: async () => valueOrThrow(await createChannel({ kind, target, events: selected })),
    onSuccess: (created) => {
      setSecret(created.secret);
      setTarget('');
    },
    onSettled: invalidate,
  });
  const chosen = kinds.find((k) => k.kind === kind) ?? kinds[0]!;

  return (
    <CardForm
      labelledBy="add-channel-heading"
      testId="channel-add-form"
      notice={secret ? <SecretNotice secret={secret} onDone={() => setSecret(null)} /> : null}
      onSubmit={() => {
        setSecret(null);
        add.mutate();
      }}
    >
      <h3 id="add-channel-heading" className="font-semibold">
        Add a channel
      </h3>
      <div className="grid gap-3 sm:grid-cols-[10rem_1fr]">
        <label htmlFor="channel-kind" className="block text-sm font-medium">
          Kind
          <Select
            id="channel-kind"
            data-testid="channel-kind"
            value={kind}
            onChange={(e) => setKind(kinds.find((k) => k.kind === e.target.value)?.kind ?? kind)}
            className="mt-1"
          >
            {kinds.map((k) => (
              <option key={k.kind} value={k.kind}>
                {k.label}
              </option>
            ))}
          </Select>
        </label>
        <label htmlFor="channel-target" className="block text-sm font-medium">
          {chosen.targetLabel}
          <Input
            id="channel-target"
            data-testid="channel-target-input"
            required
            value={target}
            placeholder={chosen.placeholder}
            onChange={(e) => setTarget(e.target.value)}
            className="mt-1 font-mono"
            autoComplete="off"
            inputMode={chosen.inputMode}
            aria-describedby="channel-kind-hint"
          />
        </label>
      </div>
      <p id="channel-kind-hint" className="text-xs text-zinc-600 dark:text-zinc-400">
        {chosen.hint}
      </p>
      <EventsFieldset events={events} selected={selected} onChange={setSelected} idPrefix="channel-add" />
      <ProblemText error={add.error} testId="channel-add-error" />
      <Button variant="primary" type="submit" data-testid="channel-add" disabled={add.isPending}>
        {add.isPending ? 'Adding…' : 'Add channel'}
      </Button>
    </CardForm>
  );
}

export function NotificationChannels({
  channels,
  kinds,
  events,
}: {
  channels: ChannelView[];
  kinds: ChannelKindForm[];
  events: EventOption[];
}) {
  return (
    <div className="space-y-4">
      {channels.length === 0 ? (
        <p
          data-testid="channels-empty"
          className="rounded-lg border border-dashed border-zinc-300 p-6 text-center text-sm dark:border-zinc-700"
        >
          No channels yet. Add one below ({kinds.map((k) => k.label).join(', ')}), and Countersign will tell it when a
          proposal waits for a decision.
        </p>
      ) : (
        <ul className="space-y-3" data-testid="channels">
          {channels.map((channel) => (
            <ChannelCard
              key={channel.id}
              channel={channel}
              kind={kinds.find((k) => k.kind === channel.kind) ?? kinds[0]!}
              events={events}
            />
          ))}
        </ul>
      )}
      <AddChannelForm kinds={kinds} events={events} />
    </div>
  );
}
