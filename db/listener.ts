import type postgres from 'postgres';

/** What a subscriber hears: each notification's payload, and whether the connection listens now. */
export type Subscriber = {
  onNotify(payload: string): void;
  /**
   * `true` once the channel is listened to, and again after a reconnect; `false` as soon as the
   * connection is lost (what is sent until the next `true` is never delivered).
   */
  onState?(listening: boolean): void;
};

export type NotificationListener = {
  /** Resolves once the channel is listened to (then `onState(true)`), rejects when it cannot be. */
  listen(channel: string, subscriber: Subscriber): Promise<() => Promise<void>>;
  close(): Promise<void>;
};

/** The connection the listener opens, told of every notification and of the connection closing. */
export type OpenListenConnection = (events: {
  onnotify(channel: string, payload: string): void;
  onclose(): void;
}) => postgres.Sql;

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;

const listenStatement = (channel: string) => `listen "${channel.replace(/"/g, '""')}"`;

/**
 * PostgreSQL's LISTEN on one connection of its own (postgres.js's `listen` re-listens after a
 * reconnect but never says the connection was lost, and a cache must know when it may have missed a
 * notification). On a close every subscriber hears `false` at once; every channel is listened to
 * again, retried with a growing pause, and then every subscriber hears `true`.
 */
export function notificationListener(open: OpenListenConnection): NotificationListener {
  const channels = new Map<string, Set<Subscriber>>();
  let lost = false;
  let closed = false;
  // Counts closes, so a re-listen that a later close overtook does not report listening.
  let closes = 0;
  let retryMs = RETRY_FIRST_MS;
  let retry: NodeJS.Timeout | undefined;

  const everyone = () => [...channels.values()].flatMap((subscribers) => [...subscribers]);
  const sql = open({
    onnotify(channel, payload) {
      for (const subscriber of channels.get(channel) ?? []) subscriber.onNotify(payload);
    },
    onclose() {
      if (closed) return;
      closes += 1;
      if (!lost) {
        lost = true;
        for (const subscriber of everyone()) subscriber.onState?.(false);
      }
      scheduleRelisten();
    },
  });

  function scheduleRelisten() {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void relisten();
    }, retryMs);
    retry.unref();
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  }

  async function relisten() {
    const before = closes;
    try {
      for (const channel of channels.keys()) await sql.unsafe(listenStatement(channel));
    } catch {
      scheduleRelisten();
      return;
    }
    if (closed || closes !== before || !lost) return;
    lost = false;
    retryMs = RETRY_FIRST_MS;
    for (const subscriber of everyone()) subscriber.onState?.(true);
  }

  return {
    async listen(channel, subscriber) {
      let subscribers = channels.get(channel);
      const first = !subscribers;
      if (!subscribers) channels.set(channel, (subscribers = new Set()));
      subscribers.add(subscriber);
      try {
        if (first) await sql.unsafe(listenStatement(channel));
      } catch (error) {
        subscribers.delete(subscriber);
        if (subscribers.size === 0) channels.delete(channel);
        throw error;
      }
      // While lost, the re-listen under way tells this subscriber too.
      if (!lost) subscriber.onState?.(true);
      return async () => {
        subscribers.delete(subscriber);
        if (subscribers.size > 0 || channels.get(channel) !== subscribers) return;
        channels.delete(channel);
        if (!closed) await sql.unsafe(`un${listenStatement(channel)}`).catch(() => {});
      };
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      await sql.end({ timeout: 5 });
    },
  };
}
