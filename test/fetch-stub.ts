import { vi } from 'vitest';

/** A request a component sent through the stubbed `fetch`, its JSON body parsed. */
export type Sent = { url: string; method: string | undefined; body: unknown };

/**
 * For component tests: the global `fetch` answers every request with `answer` (a status and a JSON
 * body) and records what was sent. Undo with `vi.unstubAllGlobals()`.
 */
export function serveJson(answer: { status: number; body: unknown }): Sent[] {
  const sent: Sent[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      sent.push({ url, method: init.method, body: JSON.parse(String(init.body)) });
      return { ok: answer.status < 300, status: answer.status, json: async () => answer.body } as Response;
    }),
  );
  return sent;
}
