import type { AgentKeyView as ServerAgentKeyView } from '@/lib/admin/agent-keys';
import { type ApiResult, call, sendJson } from './operator-api';

/**
 * The dashboard's client for the agent key admin API (`/api/v1/admin/agent-keys`), through the
 * same `call` as every operator request. Client-safe: types only from the server side.
 */

/** A key as the list shows it (dates as ISO strings); never the key itself or its hash. */
export type AgentKeyView = {
  [K in keyof ServerAgentKeyView]: ServerAgentKeyView[K] extends Date
    ? string
    : ServerAgentKeyView[K] extends Date | null
      ? string | null
      : ServerAgentKeyView[K];
};

/** A new key's fields: the agent's name, its actions, and the grants those actions read. */
export type AgentKeyRequest = { name: string; actions: string[]; grants: Record<string, string[]> };

/** A new key: `key` is the plaintext, in this answer only. */
export type IssuedKey = { agentKey: AgentKeyView; key: string };

const BASE = '/api/v1/admin/agent-keys';
const keyPath = (keyId: string, verb: 'revoke' | 'rotate') => `${BASE}/${encodeURIComponent(keyId)}/${verb}`;

export function fetchAgentKeys(): Promise<ApiResult<{ agentKeys: AgentKeyView[] }>> {
  return call(BASE, { headers: { accept: 'application/json' } }, 'The agent keys could not be loaded');
}

export function createAgentKey(input: AgentKeyRequest): Promise<ApiResult<IssuedKey>> {
  return call(BASE, sendJson(input), 'The key was not created');
}

/**
 * The key revoked, every key revoked, and the agent's keys that still work (each until its `expiresAt`; null: no end).
 */
export type Revocation = { agentKey: AgentKeyView; revoked: AgentKeyView[]; stillWorking: AgentKeyView[] };

/** Revokes this key, or (`agent`) every key of its agent that still works. */
export function revokeAgentKey(keyId: string, scope: 'key' | 'agent' = 'key'): Promise<ApiResult<Revocation>> {
  return call(
    keyPath(keyId, 'revoke'),
    sendJson({ scope }),
    scope === 'agent' ? 'The agent was not stopped' : 'The key was not revoked',
  );
}

/** A new key for the same agent; the old one keeps working for `overlapMinutes`. */
export function rotateAgentKey(keyId: string, overlapMinutes: number): Promise<ApiResult<IssuedKey>> {
  return call(keyPath(keyId, 'rotate'), sendJson({ overlapMinutes }), 'The key was not rotated');
}
