import { errorAnswer, json, type WebHandler } from './http';
import { guarded, methodNotAllowed, proofCheck, type ServiceOptions } from './service';

/** What Countersign asks a resolver: the resource an action's arguments name, for this tenant. */
export type ResolveRequest = { tenant: string; action: string; contractVersion: number; args: Record<string, unknown> };

/** The resource as the team's system of record knows it; `facts` are shown to people and fed to rules. */
export type Resolution = {
  tenant: string;
  resourceKey: string;
  facts: Record<string, string | number | boolean | null>;
  detail: string;
};

export type ResolverOptions = ServiceOptions & {
  /** The resource, or undefined when it is missing or belongs to another tenant (both answer 404). */
  resolve: (request: ResolveRequest) => Promise<Resolution | undefined> | Resolution | undefined;
};

function resolveRequestOf(value: unknown): ResolveRequest | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { tenant, action, contractVersion, args } = value as Record<string, unknown>;
  const ok =
    typeof tenant === 'string' &&
    typeof action === 'string' &&
    Number.isSafeInteger(contractVersion) &&
    !!args &&
    typeof args === 'object' &&
    !Array.isArray(args);
  return ok ? (value as ResolveRequest) : undefined;
}

/** A resolver: POST `{tenant, action, contractVersion, args}` with a request proof → 200 resolution or 404. */
export function resolverHandler(options: ResolverOptions): WebHandler {
  const check = proofCheck(options);
  return (request) =>
    guarded(async () => {
      if (request.method !== 'POST') return methodNotAllowed('POST');
      const body = await check(request, options.url);
      if (body instanceof Response) return body;
      let parsed: unknown;
      try {
        parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
      } catch {
        parsed = undefined;
      }
      const asked = resolveRequestOf(parsed);
      if (!asked) return errorAnswer(400, 'malformed_request', 'Expected {tenant, action, contractVersion, args}.');
      const resolution = await options.resolve(asked);
      return resolution ? json(200, resolution) : errorAnswer(404, 'not_found', 'No such resource for this tenant.');
    });
}
