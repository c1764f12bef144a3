'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { createAgentKey, type IssuedKey } from '@/lib/client/agent-keys-api';
import { valueOrThrow } from '@/lib/client/operator-api';
import { CardForm, CheckboxFieldset, ProblemText } from './notification-ui';
import { Button } from './ui/button';
import { Input } from './ui/input';

/** A grant an action reads, as its module describes it (lib/actions/types.ts GrantSpec). */
export type GrantOption = { name: string; label: string; values?: string[] };

/** An action a key may be allowed, with the grants it reads. */
export type ActionOption = { name: string; title: string; grants: GrantOption[] };

/** "north, south 2" → ["north", "south", "2"]: values are separated by commas or spaces. */
const splitValues = (text: string) => text.split(/[\s,]+/).filter((value) => value !== '');

/** The grants the chosen actions read, each once (two actions may read the same grant). */
function grantsOf(actions: ActionOption[], chosen: string[]): GrantOption[] {
  const seen = new Map<string, GrantOption>();
  for (const action of actions)
    if (chosen.includes(action.name))
      for (const grant of action.grants) if (!seen.has(grant.name)) seen.set(grant.name, grant);
  return [...seen.values()];
}

function GrantInput({
  grant,
  value,
  onChange,
}: {
  grant: GrantOption;
  value: string;
  onChange: (next: string) => void;
}) {
  const id = `agent-key-grant-${grant.name}`;
  if (grant.values) {
    const selected = splitValues(value);
    return (
      <fieldset data-testid={id} className="space-y-1">
        <legend className="text-sm font-medium">
          {grant.label} <span className="font-mono text-xs text-zinc-500">{grant.name}</span>
        </legend>
        <div className="flex flex-wrap gap-3">
          {grant.values.map((option) => (
            <label key={option} htmlFor={`${id}-${option}`} className="flex items-center gap-2 text-sm">
              <input
                id={`${id}-${option}`}
                type="checkbox"
                checked={selected.includes(option)}
                onChange={(e) =>
                  onChange((e.target.checked ? [...selected, option] : selected.filter((v) => v !== option)).join(','))
                }
              />
              <span className="font-mono text-xs">{option}</span>
            </label>
          ))}
        </div>
      </fieldset>
    );
  }
  return (
    <label htmlFor={id} className="block text-sm font-medium">
      {grant.label} <span className="font-mono text-xs text-zinc-500">{grant.name}</span>
      <Input
        id={id}
        data-testid={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        className="mt-1 font-mono"
        placeholder="north, south"
        autoComplete="off"
        aria-describedby={`${id}-hint`}
      />
      <span id={`${id}-hint`} className="mt-1 block text-xs font-normal text-zinc-600 dark:text-zinc-400">
        Separate values with commas. Leave it empty and the key may not use any (Authority refuses with not_authorized).
      </span>
    </label>
  );
}

/** Issue a key: a name, its actions, and the grants those actions read. The key comes back once, to `onIssued`. */
export function AgentKeyForm({
  actions,
  onIssued,
}: {
  actions: ActionOption[];
  onIssued: (issued: IssuedKey) => void;
}) {
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [grantText, setGrantText] = useState<Record<string, string>>({});
  const grants = grantsOf(actions, chosen);
  const create = useMutation({
    mutationFn: async () => {
      const values: Record<string, string[]> = {};
      for (const grant of grants) {
        const list = splitValues(grantText[grant.name] ?? '');
        if (list.length > 0) values[grant.name] = list;
      }
      return valueOrThrow(await createAgentKey({ name, actions: chosen, grants: values }));
    },
    onSuccess: (issued) => {
      setName('');
      setChosen([]);
      setGrantText({});
      onIssued(issued);
    },
  });

  return (
    <CardForm labelledBy="agent-key-form-heading" testId="agent-key-form" onSubmit={() => create.mutate()}>
      <h3 id="agent-key-form-heading" className="font-semibold">
        Create a key
      </h3>
      <label htmlFor="agent-key-name" className="block text-sm font-medium">
        Agent name
        <Input
          id="agent-key-name"
          data-testid="agent-key-name"
          required
          value={name}
          onChange={(e) => setName(e.target.value)}
          className="mt-1 font-mono"
          placeholder="acme-support-bot"
          autoComplete="off"
          maxLength={64}
          aria-describedby="agent-key-name-hint"
        />
        <span id="agent-key-name-hint" className="mt-1 block text-xs font-normal text-zinc-600 dark:text-zinc-400">
          Up to 64 letters, digits, “.”, “_” and “-”. Operators see it on every proposal the agent makes.
        </span>
      </label>
      <CheckboxFieldset
        legend="Actions it may propose"
        options={actions.map((action) => ({ name: action.name, about: action.title }))}
        selected={chosen}
        onChange={setChosen}
        testId="agent-key-actions"
        idOf={(action) => `agent-key-action-${action}`}
      />
      {grants.length > 0 ? (
        <div className="space-y-3" data-testid="agent-key-grants">
          {grants.map((grant) => (
            <GrantInput
              key={grant.name}
              grant={grant}
              value={grantText[grant.name] ?? ''}
              onChange={(next) => setGrantText({ ...grantText, [grant.name]: next })}
            />
          ))}
        </div>
      ) : null}
      <ProblemText error={create.error} testId="agent-key-create-error" />
      <Button variant="primary" type="submit" data-testid="agent-key-create" disabled={create.isPending}>
        {create.isPending ? 'Creating…' : 'Create key'}
      </Button>
    </CardForm>
  );
}
