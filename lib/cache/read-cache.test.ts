import { describe, expect, it, vi } from 'vitest';
import type { Database, DatabaseHandle } from '@/db/client';
import { CACHE_CHANNEL, type CacheChange, parseCacheChange } from './changes';
import { attachReadCache, cacheTag, ReadCache } from './read-cache';

/** A loader that answers `value` and counts its reads. */
function loader<V>(value: V) {
  const load = vi.fn(async () => value);
  return load;
}

const policyTag = cacheTag.policy('acme', 'refund');
const keep = () => [policyTag];
const policyChange: CacheChange = { kind: 'policy', tenantId: 'acme', action: 'refund', version: 3 };

function liveCache(options: ConstructorParameters<typeof ReadCache>[0] = {}) {
  const cache = new ReadCache(options);
  cache.listening(true);
  return cache;
}

describe('ReadCache', () => {
  it('reads through, keeping nothing, until its listener listens', async () => {
    const cache = new ReadCache();
    const load = loader('v1');
    expect(await cache.read('k', load, keep)).toBe('v1');
    expect(await cache.read('k', load, keep)).toBe('v1');
    expect(load).toHaveBeenCalledTimes(2);
    expect(cache.stats()).toMatchObject({ live: false, entries: 0, bypassed: 2, hits: 0 });
  });

  it('once listening, answers a kept value without reading it again', async () => {
    const cache = liveCache();
    const load = loader('v1');
    await cache.read('k', load, keep);
    expect(await cache.read('k', load, keep)).toBe('v1');
    expect(load).toHaveBeenCalledTimes(1);
    expect(cache.stats()).toMatchObject({ live: true, entries: 1, hits: 1, misses: 1 });
  });

  it('keeps nothing the caller says not to keep (an unknown key)', async () => {
    const cache = liveCache();
    const load = loader<string | undefined>(undefined);
    await cache.read('k', load, (value) => (value ? keep() : null));
    await cache.read('k', load, (value) => (value ? keep() : null));
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('drops exactly the entries a change names, and a notified change the same way', async () => {
    const cache = liveCache();
    await cache.read('policy', loader('p'), keep);
    await cache.read('contracts', loader('c'), () => [cacheTag.contracts('acme')]);
    await cache.read('key', loader('k'), () => [cacheTag.agentKey('key_1')]);
    cache.forget([policyChange]);
    expect(cache.stats()).toMatchObject({ entries: 2, dropped: 1 });
    cache.notified(JSON.stringify({ kind: 'agent_key', tenantId: 'acme', keyId: 'key_1' }));
    expect(cache.stats()).toMatchObject({ entries: 1, dropped: 2 });
    const contracts = loader('c2');
    expect(await cache.read('contracts', contracts, () => [cacheTag.contracts('acme')])).toBe('c');
    expect(contracts).not.toHaveBeenCalled();
  });

  it("drops a tenant's definitions on its actions change, and no other tenant's", async () => {
    const cache = liveCache();
    await cache.read('acme', loader('a'), () => [cacheTag.actions('acme')]);
    await cache.read('globex', loader('g'), () => [cacheTag.actions('globex')]);
    cache.notified(JSON.stringify({ kind: 'actions', tenantId: 'acme' }));
    expect(cache.stats()).toMatchObject({ entries: 1, dropped: 1, resets: 1 });
    const globex = loader('g2');
    expect(await cache.read('globex', globex, () => [cacheTag.actions('globex')])).toBe('g');
  });

  it('does not keep a value read while a change arrived: it may be what the change replaced', async () => {
    const cache = liveCache();
    let answer!: (value: string) => void;
    const pending = cache.read('k', () => new Promise<string>((resolve) => (answer = resolve)), keep);
    cache.forget([policyChange]);
    answer('old');
    expect(await pending).toBe('old');
    const load = loader('new');
    expect(await cache.read('k', load, keep)).toBe('new');
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('empties itself and reads through when its listener is lost, and empties itself again when it listens again', async () => {
    const cache = liveCache();
    await cache.read('k', loader('before'), keep);
    cache.listening(false);
    const whileLost = loader('lost');
    expect(await cache.read('k', whileLost, keep)).toBe('lost');
    expect(await cache.read('k', whileLost, keep)).toBe('lost');
    expect(whileLost).toHaveBeenCalledTimes(2);
    expect(cache.stats()).toMatchObject({ live: false, entries: 0 });
    cache.listening(true);
    const after = loader('after');
    expect(await cache.read('k', after, keep)).toBe('after');
    expect(after).toHaveBeenCalledTimes(1);
  });

  it('does not keep a value whose read began before the listener was lost', async () => {
    const cache = liveCache();
    let answer!: (value: string) => void;
    const pending = cache.read('k', () => new Promise<string>((resolve) => (answer = resolve)), keep);
    cache.listening(false);
    cache.listening(true);
    answer('stale');
    await pending;
    expect(cache.stats().entries).toBe(0);
  });

  it('forgets everything on a notification that is not a change (fail closed)', async () => {
    const cache = liveCache();
    await cache.read('k', loader('v'), keep);
    cache.notified('not json');
    cache.notified(JSON.stringify({ kind: 'policy', tenantId: 'acme' }));
    expect(cache.stats()).toMatchObject({ live: true, entries: 0 });
  });

  it('reads an entry again once it is older than the longest age', async () => {
    let now = 0;
    const cache = liveCache({ maxAgeMs: 5_000, clock: () => now });
    const load = loader('v');
    await cache.read('k', load, keep);
    now = 4_999;
    await cache.read('k', load, keep);
    expect(load).toHaveBeenCalledTimes(1);
    now = 5_000;
    await cache.read('k', load, keep);
    expect(load).toHaveBeenCalledTimes(2);
  });
});

describe('parseCacheChange', () => {
  it('takes the three kinds of change and nothing else', () => {
    expect(parseCacheChange(JSON.stringify(policyChange))).toEqual(policyChange);
    expect(parseCacheChange(JSON.stringify({ kind: 'contracts', tenantId: 'acme', action: 'refund' }))).toEqual({
      kind: 'contracts',
      tenantId: 'acme',
      action: 'refund',
    });
    expect(parseCacheChange(JSON.stringify({ kind: 'agent_key', tenantId: 'acme', keyId: 'key_1' }))).toEqual({
      kind: 'agent_key',
      tenantId: 'acme',
      keyId: 'key_1',
    });
    expect(parseCacheChange(JSON.stringify({ kind: 'tenant', tenantId: 'acme' }))).toBeUndefined();
    expect(parseCacheChange(JSON.stringify({ ...policyChange, extra: 1 }))).toBeUndefined();
    expect(parseCacheChange('')).toBeUndefined();
  });
});

describe('attachReadCache', () => {
  /** A handle's listen whose answers and states the test plays: what the database would do. */
  function scriptedListen() {
    const calls: {
      channel: string;
      onNotify: (payload: string) => void;
      onState?: (listening: boolean) => void;
      settle: { resolve: () => void; reject: (error: Error) => void };
    }[] = [];
    const listen: DatabaseHandle['listen'] = (channel, onNotify, onState) =>
      new Promise((resolve, reject) => {
        calls.push({
          channel,
          onNotify,
          onState,
          settle: {
            resolve: () => {
              resolve(async () => {});
              onState?.(true);
            },
            reject,
          },
        });
      });
    return { listen, calls };
  }
  const db = {} as Database;

  it('answers from memory only once it listens on the cache channel, and tries again when listening fails', async () => {
    const { listen, calls } = scriptedListen();
    const failures: number[] = [];
    const { cache, stop } = attachReadCache(db, listen, { onListenFailed: (_error, count) => failures.push(count) });
    try {
      expect(calls.map((call) => call.channel)).toEqual([CACHE_CHANNEL]);
      calls[0]!.settle.reject(new Error('refused'));
      await vi.waitFor(() => expect(calls).toHaveLength(2));
      expect(failures).toEqual([1]);
      expect(cache.stats().live).toBe(false);
      calls[1]!.settle.resolve();
      expect(cache.stats().live).toBe(true);
      calls[1]!.onNotify(JSON.stringify(policyChange));
      expect(cache.stats().lastNotifiedAt).not.toBeNull();
    } finally {
      await stop();
    }
    expect(cache.stats().live).toBe(false);
  });
});
