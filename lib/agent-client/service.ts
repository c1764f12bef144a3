import { bodyBytes, errorAnswer, tooLarge } from './http';
import { type KeySource, keySetOf } from './key-set';
import { jtiSet, REQUEST_PROOF_HEADER, type ReplayGuard, RequestRejected, verifyRequest } from './request-proof';

/** What every handler of a team's service is configured with. */
export type ServiceOptions = {
  /** Countersign's keys: a JWKS, or the URL of its /.well-known/jwks.json. */
  jwks: KeySource;
  /** Countersign's issuer (its APP_URL). */
  issuer: string;
  /** The URL this service answers at, exactly as the action's definition writes it. */
  url: string;
};

/** The body of a request proven to come from Countersign for `url`, or the answer to refuse it with. */
export type ProofCheck = (request: Request, url: string) => Promise<Uint8Array | Response>;

/** The request-proof check of one handler, with its own replay set: 413 for a body over the cap, 401 for no proof. */
export function proofCheck(options: ServiceOptions): ProofCheck {
  const jwks = keySetOf(options.jwks);
  const seen: ReplayGuard = jtiSet();
  return async (request, url) => {
    const body = await bodyBytes(request);
    if (!body) return tooLarge();
    try {
      const signature = request.headers.get(REQUEST_PROOF_HEADER);
      await verifyRequest({ method: request.method, signature, body }, { jwks, issuer: options.issuer, url, seen });
      return body;
    } catch (error) {
      if (error instanceof RequestRejected) return errorAnswer(401, error.code, error.message);
      throw error;
    }
  };
}

/** Any failure of the team's own code answers 500 with no detail: Countersign treats it as unknown. */
export async function guarded(run: () => Promise<Response>): Promise<Response> {
  try {
    return await run();
  } catch {
    return errorAnswer(500, 'internal_error', 'The service failed.');
  }
}

export const methodNotAllowed = (allow: string) =>
  errorAnswer(405, 'method_not_allowed', `This URL answers ${allow} only.`, { allow });
