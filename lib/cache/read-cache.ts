import type { Database, DatabaseHandle } from '@/db/client';
import { announceCacheChange, CACHE_CHANNEL, type CacheChange, parseCacheChange } from './changes';
import { BoundedLru } from './lru';

/**
 * What intake reads on every request and an admin changes rarely — a tenant's policies, contract
 * rollouts, agent keys and whether it has standing grants — kept in memory per process, per database handle
 * (docs/performance.md, "What each process keeps"). An entry is dropped when a notification on CACHE_CHANNEL says its
 * record changed: every writer announces the change in its transaction (lib/cache/changes.ts), so
 * every process hears it when it commits.
 *
 * Fail closed: the cache answers only while its listener listens. Until the first LISTEN, and from
 * a lost connection until it listens again, every read goes to the database; each change of state
 * empties the cache, since notifications may have been lost meanwhile. An entry older than
 * `maxAgeMs` is read again, a safety net for a change no writer announced (a hand-made SQL edit) or
 * a connection that died without closing; what a revocation relies on is the notification.
 */

/** The longest an entry is served before it is read again, whatever was heard. */
export const READ_CACHE_MAX_AGE_MS = 5_000;
const MAX_ENTRIES = 20_000;
const RESUBSCRIBE_FIRST_MS = 100;
const RESUBSCRIBE_MAX_MS = 5_000;

export type ReadCacheOptions = {
  maxAgeMs?: number;
  maxEntries?: number;
  /** Milliseconds, monotonic (performance.now by default). */
  clock?: () => number;
};

export type ReadCacheStats = {
  /** Whether the cache answers: its listener listens and it was emptied since. */
  live: boolean;
  entries: number;
  hits: number;
  misses: number;
  /** Reads that went to the database because the cache was not live. */
  bypassed: number;
  /** Entries dropped by a change (announced, heard, or this process's own commit). */
  dropped: number;
  /** Times the cache was emptied by its listener connecting, reconnecting or being lost. */
  resets: number;
  /** Notifications heard, and when the last was (Date.now()), or null. */
  notified: number;
  lastNotifiedAt: number | null;
};

type Entry = { value: unknown; storedAt: number; tags: readonly string[] };

/** Tags name what an entry was read from; a change drops every entry that carries its tag. */
export const cacheTag = {
  policy: (tenantId: string, action: string) => JSON.stringify(['policy', tenantId, action]),
  contracts: (tenantId: string) => JSON.stringify(['contracts', tenantId]),
  agentKey: (keyId: string) => JSON.stringify(['agent_key', keyId]),
  grants: (tenantId: string) => JSON.stringify(['grants', tenantId]),
  actions: (tenantId: string) => JSON.stringify(['actions', tenantId]),
};

function tagOf(change: CacheChange): string {
  switch (change.kind) {
    case 'policy':
      return cacheTag.policy(change.tenantId, change.action);
    case 'contracts':
      return cacheTag.contracts(change.tenantId);
    case 'agent_key':
      return cacheTag.agentKey(change.keyId);
    case 'grants':
      return cacheTag.grants(change.tenantId);
    case 'actions':
      return cacheTag.actions(change.tenantId);
  }
}

export class ReadCache {
  private readonly entries: BoundedLru<string, Entry>;
  private readonly maxAgeMs: number;
  private readonly clock: () => number;
  private live = false;
  // Moves on every drop and reset: a read that began before one is not kept, since it may have read
  // what the change replaced.
  private epoch = 0;
  private counts = { hits: 0, misses: 0, bypassed: 0, dropped: 0, resets: 0, notified: 0 };
  private lastNotifiedAt: number | null = null;

  constructor(options: ReadCacheOptions = {}) {
    const maxEntries = options.maxEntries ?? MAX_ENTRIES;
    this.entries = new BoundedLru({ maxEntries, maxWeight: maxEntries, weigh: () => 1 });
    this.maxAgeMs = options.maxAgeMs ?? READ_CACHE_MAX_AGE_MS;
    this.clock = options.clock ?? (() => performance.now());
  }

  /**
   * The value kept under `key`, or `load()`'s answer, kept with the tags `tagsOf` gives it (null:
   * not kept, e.g. a key that is not found). A kept value is shared by every request that reads
   * it: only what this process itself wrote (a key's last use) may be noted on it.
   */
  async read<V>(key: string, load: () => Promise<V>, tagsOf: (value: V) => readonly string[] | null): Promise<V> {
    if (!this.live) {
      this.counts.bypassed += 1;
      return load();
    }
    const startedAt = this.clock();
    const kept = this.entries.get(key);
    if (kept && startedAt - kept.storedAt < this.maxAgeMs) {
      this.counts.hits += 1;
      return kept.value as V;
    }
    this.counts.misses += 1;
    const epoch = this.epoch;
    const value = await load();
    const tags = tagsOf(value);
    if (tags && this.live && this.epoch === epoch) this.entries.set(key, { value, storedAt: startedAt, tags });
    return value;
  }

  /** A change that committed: every entry read from that record goes. */
  forget(changes: readonly CacheChange[]): void {
    for (const change of changes) {
      const tag = tagOf(change);
      this.epoch += 1;
      this.counts.dropped += this.entries.deleteWhere((entry) => entry.tags.includes(tag));
    }
  }

  /** A notification's payload; one that is not a change empties the cache (fail closed). */
  notified(payload: string): void {
    this.counts.notified += 1;
    this.lastNotifiedAt = Date.now();
    const change = parseCacheChange(payload);
    if (change) this.forget([change]);
    else this.reset(this.live);
  }

  /** The listener's state: listening (again) or lost. Either way what is kept may be stale. */
  listening(state: boolean): void {
    this.reset(state);
  }

  stats(): ReadCacheStats {
    return { live: this.live, entries: this.entries.size, ...this.counts, lastNotifiedAt: this.lastNotifiedAt };
  }

  private reset(live: boolean): void {
    this.epoch += 1;
    this.entries.clear();
    this.counts.resets += 1;
    this.live = live;
  }
}

// On globalThis: Next bundles instrumentation and each route apart, and all must find one cache.
const registry = ((
  globalThis as unknown as { countersignReadCaches?: WeakMap<Database, ReadCache> }
).countersignReadCaches ??= new WeakMap());

/** The cache attached to this database handle's `db`; a transaction, or any other handle, has none. */
export function readCacheOf(db: Database): ReadCache | undefined {
  return registry.get(db);
}

/** Through the cache of `db` when it has one (ReadCache.read), else straight from the database. */
export function cachedRead<V>(
  db: Database,
  key: string,
  load: () => Promise<V>,
  tagsOf: (value: V) => readonly string[] | null,
): Promise<V> {
  const cache = registry.get(db);
  return cache ? cache.read(key, load, tagsOf) : load();
}

export type AttachedReadCache = { cache: ReadCache; stop(): Promise<void> };

/**
 * Gives `db` a read cache that listens through `listen` (the handle's) for changes; it answers only
 * once listening. When listening fails it tries again, with a growing pause, and reads go to the
 * database meanwhile. `onListenFailed` is told of each failure and how many there were in a row.
 */
export function attachReadCache(
  db: Database,
  listen: DatabaseHandle['listen'],
  options: ReadCacheOptions & { onListenFailed?: (error: unknown, failures: number) => void } = {},
): AttachedReadCache {
  const cache = new ReadCache(options);
  registry.set(db, cache);
  let stopped = false;
  let unlisten: (() => Promise<void>) | undefined;
  let retry: NodeJS.Timeout | undefined;
  let pauseMs = RESUBSCRIBE_FIRST_MS;
  let failures = 0;
  const subscribe = (): void => {
    // A listen still under way when the cache stops is undone when it ends; stopping does not wait for it.
    listen(
      CACHE_CHANNEL,
      (payload) => cache.notified(payload),
      (state) => {
        if (!stopped) cache.listening(state);
      },
    ).then(
      async (stop) => {
        failures = 0;
        if (stopped) await stop().catch(() => {});
        else unlisten = stop;
      },
      (error: unknown) => {
        if (stopped) return;
        failures += 1;
        options.onListenFailed?.(error, failures);
        retry = setTimeout(subscribe, pauseMs);
        retry.unref();
        pauseMs = Math.min(pauseMs * 2, RESUBSCRIBE_MAX_MS);
      },
    );
  };
  subscribe();
  return {
    cache,
    async stop() {
      stopped = true;
      clearTimeout(retry);
      if (registry.get(db) === cache) registry.delete(db);
      cache.listening(false);
      await unlisten?.();
    },
  };
}

/**
 * One transaction that changes records processes keep: `announce` each change in it (a NOTIFY,
 * delivered to every process when it commits), and once it commits this process forgets them at
 * once, so the writer reads its own write without waiting for its own notification. Called with a
 * transaction (nested), the outermost caller's commit is what counts: it announces the change too.
 */
export async function changeTransaction<T>(
  db: Database,
  work: (tx: Database, announce: (change: CacheChange) => Promise<void>) => Promise<T>,
): Promise<T> {
  const changes: CacheChange[] = [];
  const result = await db.transaction((tx) =>
    work(tx, async (change) => {
      await announceCacheChange(tx, change);
      changes.push(change);
    }),
  );
  registry.get(db)?.forget(changes);
  return result;
}
