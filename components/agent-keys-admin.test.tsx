import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentKeyView, Revocation } from '@/lib/client/agent-keys-api';
import { AgentKeysAdmin } from './agent-keys-admin';

const OVERLAP_END = '2030-01-01T11:00:00.000Z';

function keyView(id: string, fields: Partial<AgentKeyView> = {}): AgentKeyView {
  return {
    id,
    tenantId: 'acme',
    agentName: 'ship-bot',
    keyPrefix: `cs_agent_${id.slice(-6)}`,
    actions: ['hold_stock'],
    grants: { warehouses: ['north'] },
    createdAt: '2030-01-01T09:00:00.000Z',
    lastUsedAt: null,
    revokedAt: null,
    expiresAt: null,
    replacedById: null,
    state: 'active',
    ...fields,
  };
}

const OLD = keyView('key_old001', { state: 'expiring', expiresAt: OVERLAP_END, replacedById: 'key_new001' });
const NEW = keyView('key_new001');
const LONE = keyView('key_lone01', { agentName: 'lone-bot' });

type Sent = { url: string; method: string; body: unknown };

/** The admin API as the page meets it: the list (`keys()` now), a rotation, and a revocation's answer. */
function serve(keys: () => AgentKeyView[], answers: { rotate?: unknown; revoke?: Revocation }): Sent[] {
  const sent: Sent[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit = {}) => {
      const method = init.method ?? 'GET';
      sent.push({ url, method, body: init.body === undefined ? undefined : JSON.parse(String(init.body)) });
      const body = method === 'GET' ? { agentKeys: keys() } : url.endsWith('/rotate') ? answers.rotate : answers.revoke;
      return {
        ok: true,
        status: method === 'GET' ? 200 : url.endsWith('/rotate') ? 201 : 200,
        json: async () => body,
      } as Response;
    }),
  );
  return sent;
}

function show() {
  render(
    <QueryClientProvider
      client={new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } })}
    >
      <AgentKeysAdmin
        actions={[{ name: 'hold_stock', title: 'Hold stock', grants: [{ name: 'warehouses', values: null }] }] as never}
      />
    </QueryClientProvider>,
  );
}

const card = async (id: string) => {
  const found = await screen.findAllByTestId('agent-key');
  return found.find((element) => element.getAttribute('data-key-id') === id)!;
};

afterEach(() => vi.unstubAllGlobals());

describe('revoking an agent key', () => {
  it('says the rotated old key still works, until when, and offers to stop the agent: every key of it', async () => {
    const sent = serve(() => [NEW, OLD], {
      revoke: {
        agentKey: { ...NEW, state: 'revoked' },
        revoked: [
          { ...NEW, state: 'revoked' },
          { ...OLD, state: 'revoked' },
        ],
        stillWorking: [],
      },
    });
    show();
    const newest = await card(NEW.id);
    fireEvent.click(within(newest).getByTestId('agent-key-revoke'));
    const still = within(newest).getByTestId('agent-key-revoke-still-working');
    expect(still.textContent).toContain('ship-bot keeps working after this with another key:');
    expect(still.textContent).toContain(`${OLD.keyPrefix}… (rotated) works until`);
    expect(within(still).getByRole('listitem').querySelector('time')?.getAttribute('datetime')).toBe(OVERLAP_END);
    const stop = within(newest).getByTestId('agent-key-stop-agent');
    expect(stop.textContent).toBe('Stop ship-bot: revoke all 2 keys');
    expect(document.activeElement).toBe(stop);
    expect(within(newest).getByTestId('agent-key-revoke-confirm').textContent).toBe('Revoke this key only');
    fireEvent.click(stop);
    await waitFor(() =>
      expect(sent.filter((request) => request.method === 'POST')).toEqual([
        { url: `/api/v1/admin/agent-keys/${NEW.id}/revoke`, method: 'POST', body: { scope: 'agent' } },
      ]),
    );
    expect((await screen.findByTestId('agent-key-revoked-notice')).textContent).toContain(
      'Stopped ship-bot: revoked 2 keys.',
    );
    expect(screen.getByTestId('agent-key-revoked-none-left').textContent).toBe('No key of ship-bot works any more.');
  });

  it('closes on Escape or Cancel and puts the keyboard back on the button that opened it', async () => {
    serve(() => [NEW, OLD], {});
    show();
    const newest = await card(NEW.id);
    fireEvent.click(within(newest).getByTestId('agent-key-revoke'));
    expect(document.activeElement).toBe(within(newest).getByTestId('agent-key-stop-agent'));
    fireEvent.keyDown(within(newest).getByTestId('agent-key-stop-agent'), { key: 'Escape' });
    expect(within(newest).queryByTestId('agent-key-revoke-panel')).toBeNull();
    expect(document.activeElement).toBe(within(newest).getByTestId('agent-key-revoke'));
    fireEvent.click(within(newest).getByTestId('agent-key-rotate'));
    fireEvent.click(within(newest).getByTestId('agent-key-rotate-cancel'));
    expect(within(newest).queryByTestId('agent-key-rotate-panel')).toBeNull();
    expect(document.activeElement).toBe(within(newest).getByTestId('agent-key-rotate'));
  });

  it('asks plainly for an agent’s only key, and revokes just that key', async () => {
    const sent = serve(() => [LONE], {
      revoke: { agentKey: { ...LONE, state: 'revoked' }, revoked: [{ ...LONE, state: 'revoked' }], stillWorking: [] },
    });
    show();
    const lone = await card(LONE.id);
    fireEvent.click(within(lone).getByTestId('agent-key-revoke'));
    expect(within(lone).queryByTestId('agent-key-revoke-still-working')).toBeNull();
    expect(within(lone).queryByTestId('agent-key-stop-agent')).toBeNull();
    const confirm = within(lone).getByTestId('agent-key-revoke-confirm');
    expect([confirm.textContent, document.activeElement]).toEqual(['Revoke key', confirm]);
    fireEvent.click(confirm);
    await waitFor(() =>
      expect(sent.filter((request) => request.method === 'POST').map((request) => request.body)).toEqual([
        { scope: 'key' },
      ]),
    );
  });

  it('takes the "copy it now" panel away once its key is revoked, and says what still works until when', async () => {
    let keys = [keyView('key_new001', { id: 'key_old001', keyPrefix: OLD.keyPrefix })];
    const issued = { agentKey: NEW, key: 'cs_agent_the-new-secret' };
    serve(() => keys, {
      rotate: issued,
      revoke: { agentKey: { ...NEW, state: 'revoked' }, revoked: [{ ...NEW, state: 'revoked' }], stillWorking: [OLD] },
    });
    show();
    const only = await card('key_old001');
    fireEvent.click(within(only).getByTestId('agent-key-rotate'));
    keys = [NEW, OLD];
    fireEvent.click(within(only).getByTestId('agent-key-rotate-confirm'));
    expect((await screen.findByTestId('agent-key-secret')).textContent).toBe('cs_agent_the-new-secret');

    const newest = await card(NEW.id);
    fireEvent.click(within(newest).getByTestId('agent-key-revoke'));
    keys = [{ ...NEW, state: 'revoked', revokedAt: '2030-01-01T10:05:00.000Z' }, OLD];
    fireEvent.click(within(newest).getByTestId('agent-key-revoke-confirm'));
    await waitFor(() => expect(screen.queryByTestId('agent-key-secret')).toBeNull());
    const notice = screen.getByTestId('agent-key-revoked-notice');
    expect(notice.textContent).toContain(`Revoked ${NEW.keyPrefix}… of ship-bot.`);
    expect(within(notice).getByTestId('agent-key-revoked-still-working').textContent).toContain(
      `${OLD.keyPrefix}… (rotated) works until`,
    );
  });

  it('takes the panel away too when the list shows its key revoked elsewhere', async () => {
    let keys = [LONE];
    serve(() => keys, { rotate: { agentKey: { ...LONE, id: 'key_lone02' }, key: 'cs_agent_rotated-secret' } });
    show();
    const lone = await card(LONE.id);
    fireEvent.click(within(lone).getByTestId('agent-key-rotate'));
    keys = [
      { ...LONE, id: 'key_lone02', state: 'revoked', revokedAt: '2030-01-01T10:05:00.000Z' },
      { ...LONE, state: 'expiring', expiresAt: OVERLAP_END },
    ];
    fireEvent.click(within(lone).getByTestId('agent-key-rotate-confirm'));
    await waitFor(() =>
      expect(screen.getAllByTestId('agent-key').map((element) => element.getAttribute('data-state'))).toContain(
        'revoked',
      ),
    );
    expect(screen.queryByTestId('agent-key-secret')).toBeNull();
  });
});
