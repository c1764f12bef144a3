import { type CommandClaims, CommandRejected, verifyCommand } from './command';
import { errorAnswer, json, type WebHandler } from './http';
import { keySetOf } from './key-set';
import { guarded, methodNotAllowed, proofCheck, type ServiceOptions } from './service';

export type Receipt = Record<string, unknown>;

/** What the team's `execute` answers: a receipt (done), or a business refusal (nothing done, 422). */
export type ExecuteResult = { receipt: Receipt } | { refused: { code: string; message: string } };

export type ExecutorOptions = ServiceOptions & {
  /** This executor's scope: commands must be addressed to `executor:<scope>`. */
  scope: string;
  /**
   * Performs the command's effect, keyed downstream by `claims.idempotencyKey`. Called once per
   * idempotency key while this process lives; a replay answers the remembered receipt.
   */
  execute: (claims: CommandClaims) => Promise<ExecuteResult> | ExecuteResult;
  /** Reconciliation: the receipt of a command this service executed, from the team's own store, or undefined. */
  lookup: (commandId: string) => Promise<Receipt | undefined> | Receipt | undefined;
};

const COMMAND_ID = /^[A-Za-z0-9_.~-]{1,128}$/;

/**
 * The command id a GET names: the path below the executor's own, or the last segment behind a
 * rewrite; null for the executor's own URL, undefined for no valid id.
 */
function commandIdOf(request: Request, base: string): string | null | undefined {
  const path = new URL(request.url).pathname.replace(/\/+$/, '');
  const own = new URL(base).pathname.replace(/\/+$/, '');
  if (path === own) return null;
  const rest = path.startsWith(`${own}/`) ? path.slice(own.length + 1) : path.split('/').pop();
  if (!rest) return undefined;
  try {
    const id = decodeURIComponent(rest);
    return COMMAND_ID.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

const notExecuted = () => errorAnswer(404, 'not_found', 'No command with that id was executed.');
const isReceipt = (value: unknown): value is Receipt => !!value && typeof value === 'object' && !Array.isArray(value);

/**
 * An executor (docs/executors.md): POST verifies the request proof and the command, then runs
 * `execute` once per idempotency key — a replay (the same command, or a re-mint of the same
 * approval) answers the same receipt with no second effect. GET `<url>/<commandId>` answers the
 * receipt (200) or 404. Receipts are remembered in this process's memory only: a real service
 * keeps them in its own store, and `lookup` answers from there after a restart.
 */
export function executorHandler(options: ExecutorOptions): WebHandler {
  const jwks = keySetOf(options.jwks);
  const check = proofCheck({ ...options, jwks });
  const outcomes = new Map<string, Promise<ExecuteResult>>();
  const receipts = new Map<string, Receipt>();

  function once(claims: CommandClaims): Promise<ExecuteResult> {
    const known = outcomes.get(claims.idempotencyKey);
    if (known) return known;
    const outcome = Promise.resolve().then(() => options.execute(claims));
    outcomes.set(claims.idempotencyKey, outcome);
    // Nothing was done on a refusal or a failure: a later delivery may try again.
    const forget = () => outcomes.get(claims.idempotencyKey) === outcome && outcomes.delete(claims.idempotencyKey);
    outcome.then((result) => isReceipt((result as Partial<{ receipt: unknown }>)?.receipt) || forget(), forget);
    return outcome;
  }

  async function post(request: Request): Promise<Response> {
    const body = await check(request, options.url);
    if (body instanceof Response) return body;
    let claims: CommandClaims;
    try {
      const jws = new TextDecoder().decode(body).trim();
      claims = await verifyCommand(jws, { jwks, scope: options.scope, issuer: options.issuer });
    } catch (error) {
      if (error instanceof CommandRejected) return errorAnswer(422, error.code, error.message);
      throw error;
    }
    const result = await once(claims);
    if ('refused' in result) return errorAnswer(422, result.refused.code, result.refused.message);
    if (!isReceipt(result.receipt)) throw new Error('execute answered no receipt object');
    receipts.set(claims.jti, result.receipt);
    return json(200, { receipt: result.receipt });
  }

  async function get(request: Request): Promise<Response> {
    const id = commandIdOf(request, options.url);
    if (id === null) return methodNotAllowed('POST');
    if (id === undefined) return notExecuted();
    const proven = await check(request, `${options.url}/${id}`);
    if (proven instanceof Response) return proven;
    const receipt = receipts.get(id) ?? (await options.lookup(id));
    return receipt ? json(200, { receipt }) : notExecuted();
  }

  return (request) =>
    guarded(async () => {
      if (request.method === 'POST') return post(request);
      if (request.method === 'GET') return get(request);
      return methodNotAllowed('POST, GET');
    });
}
