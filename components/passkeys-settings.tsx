'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { type ApiProblem, valueOrThrow } from '@/lib/client/operator-api';
import { addPasskey, fetchPasskeys, removePasskey } from '@/lib/client/passkeys-api';
import { CARD } from './notification-ui';
import { PayloadText } from './payload-text';
import { Button } from './ui/button';
import { Input } from './ui/input';
import { ViewerClock } from './viewer-time';

const PASSKEYS_KEY = ['me', 'passkeys'];

/**
 * Settings → Security: the signed-in person's passkeys — add one (named), see when each last
 * signed, remove one. On an IP address, where passkeys cannot work, it says so and links to the
 * same page on a host name. After a change the page is read again: an admin's tenant section
 * counts who has a passkey.
 */
export function PasskeysSettings() {
  const client = useQueryClient();
  const router = useRouter();
  const query = useQuery({ queryKey: PASSKEYS_KEY, queryFn: async () => valueOrThrow(await fetchPasskeys()) });
  const list = query.data ?? null;
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const reload = () => client.invalidateQueries({ queryKey: PASSKEYS_KEY });

  const run = async (work: () => Promise<{ ok: true } | { ok: false; problem: ApiProblem }>) => {
    setBusy(true);
    const result = await work();
    setProblem(result.ok ? null : result.problem);
    if (result.ok) {
      await reload();
      router.refresh();
    }
    setBusy(false);
    return result.ok;
  };

  const host = list?.hostProblem;
  return (
    <div className={`${CARD} space-y-4`} data-testid="passkeys">
      <h2 className="font-semibold">Passkeys</h2>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        A passkey signs your decisions on this device (with its PIN, fingerprint or face): the evidence bundle then
        proves you approved, without trusting the server.
      </p>
      {host ? (
        <p
          role="alert"
          data-testid="passkey-host-problem"
          className={
            'rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 ' +
            'dark:bg-amber-950 dark:text-amber-200'
          }
        >
          {host.message}{' '}
          {host.useInstead ? (
            <a className="font-medium underline" href={`${host.useInstead}/settings/security`}>
              Open {host.useInstead}
            </a>
          ) : null}
        </p>
      ) : null}
      {list === null ? <p className="text-sm text-zinc-500">{query.error ? query.error.message : 'Loading…'}</p> : null}
      {list && list.passkeys.length === 0 ? (
        <p data-testid="passkeys-none" className="text-sm">
          You have no passkey yet.
        </p>
      ) : null}
      {list && list.passkeys.length > 0 ? (
        <ul className="divide-y divide-zinc-100 dark:divide-zinc-800" data-testid="passkey-list">
          {list.passkeys.map((passkey) => (
            <li
              key={passkey.id}
              data-testid="passkey-row"
              data-name={passkey.name}
              className="flex flex-wrap items-center gap-3 py-2 text-sm"
            >
              <span className="font-medium">
                <PayloadText value={passkey.name} mono={false} />
              </span>
              <span className="text-zinc-500">
                added <ViewerClock value={passkey.createdAt} />
              </span>
              <span className="text-zinc-500" data-testid="passkey-last-used">
                {passkey.lastUsedAt ? (
                  <>
                    last used <ViewerClock value={passkey.lastUsedAt} />
                  </>
                ) : (
                  'never used'
                )}
              </span>
              <Button
                variant="link"
                className="ml-auto text-sm"
                disabled={busy}
                data-testid="passkey-remove"
                onClick={() => void run(() => removePasskey(passkey.id))}
              >
                Remove
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          void run(() => addPasskey(name.trim())).then((added) => added && setName(''));
        }}
      >
        <label htmlFor="passkey-name" className="block grow text-sm font-medium">
          Name (what you call this device or key)
          <Input
            id="passkey-name"
            data-testid="passkey-name"
            required
            maxLength={64}
            placeholder="YubiKey 5"
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        </label>
        <Button
          variant="primary"
          type="submit"
          disabled={busy || Boolean(host) || name.trim().length === 0}
          data-testid="passkey-add"
        >
          {busy ? 'Waiting for your passkey…' : 'Add a passkey'}
        </Button>
      </form>
      {problem ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400" data-testid="passkey-problem">
          {problem.message}
        </p>
      ) : null}
    </div>
  );
}
