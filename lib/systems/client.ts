import type { z } from 'zod';
import { env, systemsOfRecordUrl } from '@/lib/env';

/** The system of record could not give a trustworthy answer: intake fails closed (503). */
export class SystemsUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`system of record unavailable: ${reason}`);
    this.name = 'SystemsUnavailableError';
  }
}

export type SystemsClient = {
  /** A validated record, or undefined when the system says it does not exist (404). */
  read<T>(path: string, schema: z.ZodType<T>, scope: string): Promise<T | undefined>;
};

export function createSystemsClient(options: { baseUrl: string; credentials: Record<string, string>; timeoutMs?: number }): SystemsClient {
  const timeoutMs = options.timeoutMs ?? 3_000;
  return {
    async read(path, schema, scope) {
      // An id of "." or ".." would climb out of its collection once the URL is resolved: no such record.
      if (path.split('/').some((part) => part === '.' || part === '..')) return undefined;
      const credential = options.credentials[scope];
      let response: Response;
      try {
        response = await fetch(new URL(path, options.baseUrl), {
          headers: { accept: 'application/json', ...(credential ? { authorization: `Bearer ${credential}` } : {}) },
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw new SystemsUnavailableError(error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'unreachable');
      }
      if (response.status === 404) {
        await response.body?.cancel();
        return undefined;
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new SystemsUnavailableError(`status ${response.status}`);
      }
      const parsed = schema.safeParse(await response.json().catch(() => undefined));
      if (!parsed.success) throw new SystemsUnavailableError('unexpected response shape');
      return parsed.data;
    },
  };
}

let shared: SystemsClient | undefined;

export function systemsClient(): SystemsClient {
  shared ??= createSystemsClient({ baseUrl: systemsOfRecordUrl(env()), credentials: env().SCOPE_CREDENTIALS ?? {} });
  return shared;
}

/** A path segment from an id the agent sent (already pattern-checked): never a path trick. */
export function segment(id: string): string {
  return encodeURIComponent(id);
}
