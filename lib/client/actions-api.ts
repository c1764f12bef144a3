import type { DefinitionPlanAnswer, DefinitionPublished } from '@/lib/definitions/answers';
import type { DefinitionPublishRequest, EvidenceSettings } from '@/lib/definitions/requests';
import { type ApiProblem, type ApiResult, call, type FieldProblem, sendJson } from './operator-api';

/**
 * The dashboard's client for the action definitions admin API (`/api/v1/admin/actions`,
 * docs/actions.md). Client-safe: types only from the server side.
 */

const BASE = '/api/v1/admin/actions';

/** One problem of a document, by its path in it (`rules.0.require`, `executor`). */
export type DocumentProblem = { path: string; message: string };

/** A refused publish: the problem, and the document's own problems when it was `422 invalid_definition`. */
export type PublishRefusal = ApiProblem & { problems: DocumentProblem[]; currentVersion: number | null };

export type PublishResult = { ok: true; value: DefinitionPublished } | { ok: false; problem: PublishRefusal };

/** What publishing the document would change (or its problems); writes nothing. */
export function planDefinition(document: unknown): Promise<ApiResult<DefinitionPlanAnswer>> {
  return call(`${BASE}/plan`, sendJson({ document }), 'The plan could not be computed');
}

type RefusalBody = {
  error?: { code?: unknown; message?: unknown; issues?: unknown; problems?: unknown; currentVersion?: unknown };
};

const text = (value: unknown, otherwise: string) => (typeof value === 'string' ? value : otherwise);

/**
 * Publishes the document as its action's next version. Its own fetch, not `call`: a refusal keeps
 * the document's problems (422 `invalid_definition`) and the version that came first (409
 * `stale_definition`), which `call` drops.
 */
export async function publishDefinition(request: DefinitionPublishRequest): Promise<PublishResult> {
  let response: Response;
  try {
    response = await fetch(BASE, sendJson(request, 'PUT'));
  } catch {
    const message = 'The request did not reach the server; check the connection and try again.';
    return {
      ok: false,
      problem: { status: 0, code: 'network', message, issues: [], problems: [], currentVersion: null },
    };
  }
  const body: unknown = await response.json().catch(() => null);
  if (response.ok && body !== null) return { ok: true, value: body as DefinitionPublished };
  const error = (body as RefusalBody | null)?.error;
  const status = response.status;
  return {
    ok: false,
    problem: {
      status,
      code: text(error?.code, `http_${status}`),
      message: text(
        error?.message,
        status === 401
          ? 'Your session has ended; sign in again.'
          : `The definition was not published (HTTP ${status}).`,
      ),
      issues: Array.isArray(error?.issues) ? (error.issues as FieldProblem[]) : [],
      problems: Array.isArray(error?.problems) ? (error.problems as DocumentProblem[]) : [],
      currentVersion: typeof error?.currentVersion === 'number' ? error.currentVersion : null,
    },
  };
}

/** An admin sets (a URL) or clears (null) the tenant's evidence resolver. */
export function putEvidenceResolver(resolver: string | null): Promise<ApiResult<EvidenceSettings>> {
  return call('/api/v1/admin/evidence/settings', sendJson({ resolver }, 'PUT'), 'The evidence resolver was not saved');
}
