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

/**
 * A service answering POSTs: the request proof checked, the body read as UTF-8 JSON and shaped by
 * `read` (400 `malformed_request` saying `expected` when it cannot be), then `answer` given it.
 */
function postHandler<T>(
  options: ServiceOptions,
  read: (value: unknown) => T | undefined,
  expected: string,
  answer: (asked: T) => Promise<Response>,
): WebHandler {
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
      const asked = read(parsed);
      return asked ? answer(asked) : errorAnswer(400, 'malformed_request', `Expected ${expected}.`);
    });
}

/** A resolver: POST `{tenant, action, contractVersion, args}` with a request proof → 200 resolution or 404. */
export function resolverHandler(options: ResolverOptions): WebHandler {
  return postHandler(options, resolveRequestOf, '{tenant, action, contractVersion, args}', async (asked) => {
    const resolution = await options.resolve(asked);
    return resolution ? json(200, resolution) : errorAnswer(404, 'not_found', 'No such resource for this tenant.');
  });
}

/** What Countersign asks a tenant's evidence resolver: one ref an agent cited. */
export type EvidenceRequest = { tenant: string; ref: string };

/** An evidence record as a person reads it beside the proposal (`text` at most 20,000 characters). */
export type EvidenceRecord = { tenant: string; id: string; kind: string; text: string };

export type EvidenceResolverOptions = ServiceOptions & {
  /** The record, or undefined when it is missing or belongs to another tenant (both answer 404). */
  find: (request: EvidenceRequest) => Promise<EvidenceRecord | undefined> | EvidenceRecord | undefined;
};

function evidenceRequestOf(value: unknown): EvidenceRequest | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { tenant, ref } = value as Record<string, unknown>;
  return typeof tenant === 'string' && typeof ref === 'string' ? { tenant, ref } : undefined;
}

/** A tenant's evidence resolver: POST `{tenant, ref}` with a request proof → 200 record or 404. */
export function evidenceResolverHandler(options: EvidenceResolverOptions): WebHandler {
  return postHandler(options, evidenceRequestOf, '{tenant, ref}', async (asked) => {
    const record = await options.find(asked);
    return record ? json(200, record) : errorAnswer(404, 'not_found', 'No such evidence for this tenant.');
  });
}
