import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { requireScope, type ScopeCredentials } from './auth';
import type { FaultQueue } from './faults';
import { HttpError, readJsonBody, send, sendJson } from './http';
import type { Ledger, WriteResult } from './ledger';
import { saveLedgers } from './persistence';
import {
  describeIssues,
  type FaultTarget,
  holdRequestSchema,
  idempotencyKeySchema,
  refundRequestSchema,
} from './schemas';
import type { Hold, Refund, Scope } from './world';

/** Everything a write needs from the running service. */
export type WriteContext = {
  ledger: Ledger;
  faults: FaultQueue;
  credentials: ScopeCredentials;
  dataFile?: string;
};

/**
 * The timeout faults: no answer at all, and no timer either. The connection stays open until the
 * client gives up or close() ends every connection.
 */
const hang = (): void => undefined;

type WriteSpec<Input, Record> = {
  target: FaultTarget;
  scope: Scope;
  what: string;
  schema: z.ZodType<Input>;
  commit(ledger: Ledger, input: Input): WriteResult<Record>;
  lookup(ledger: Ledger, key: string): Record | undefined;
  /** The same record, claiming another resource (the wrong_resource fault). */
  misattribute(ledger: Ledger, record: Record): Record;
};

const REFUNDS: WriteSpec<z.infer<typeof refundRequestSchema>, Refund> = {
  target: 'refunds',
  scope: 'payments',
  what: 'refund',
  schema: refundRequestSchema,
  commit: (ledger, input) => ledger.refund(input),
  lookup: (ledger, key) => ledger.refundByKey(key),
  misattribute: (ledger, record) => ({ ...record, orderId: ledger.otherOrderId(record.orderId) }),
};

const HOLDS: WriteSpec<z.infer<typeof holdRequestSchema>, Hold> = {
  target: 'holds',
  scope: 'inventory',
  what: 'hold',
  schema: holdRequestSchema,
  commit: (ledger, input) => ledger.hold(input),
  lookup: (ledger, key) => ledger.holdByKey(key),
  misattribute: (ledger, record) => ({ ...record, sku: ledger.otherSku(record.sku) }),
};

export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new HttpError(400, 'invalid_request', describeIssues(parsed.error));
  return parsed.data;
}

/** Runs a write and, when it created a record, persists the ledgers; a failed save undoes the write. */
function commitAndPersist<Input, Record>(
  context: WriteContext,
  spec: WriteSpec<Input, Record>,
  input: Input,
): WriteResult<Record> {
  const before = context.ledger.snapshot();
  const result = spec.commit(context.ledger, input);
  if (result.outcome === 'created' && context.dataFile) {
    try {
      saveLedgers(context.dataFile, context.ledger.snapshot());
    } catch (error) {
      context.ledger.restore(before);
      throw error;
    }
  }
  return result;
}

/**
 * `POST /refunds` and `POST /holds`: scope credential, JSON body, closed schema, then the queued
 * fault (if any) and the idempotent commit. Faults that act before the commit change nothing.
 */
async function handleWrite<Input, Record>(
  context: WriteContext,
  spec: WriteSpec<Input, Record>,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  requireScope(request, context.credentials, spec.scope);
  const input = parseBody(spec.schema, await readJsonBody(request));
  const fault = context.faults.take(spec.target);
  if (fault === 'timeout_before_commit') return hang();
  if (fault === 'error_500')
    throw new HttpError(500, 'injected_fault', 'Injected failure (test mode): nothing was committed.');

  const result = commitAndPersist(context, spec, input);
  if (result.outcome === 'refused') throw new HttpError(result.status, result.code, result.message);
  const status = result.outcome === 'created' ? 201 : 200;
  switch (fault) {
    case 'timeout_after_commit':
      return hang();
    case 'malformed':
      return send(response, status, 'application/json; charset=utf-8', JSON.stringify(result.record).slice(0, -7));
    case 'wrong_resource':
      return sendJson(response, status, spec.misattribute(context.ledger, result.record));
    default:
      return sendJson(response, status, result.record);
  }
}

/** `GET /refunds?idempotencyKey=…` and `GET /holds?idempotencyKey=…`: did this key commit? */
function handleLookup<Input, Record>(
  context: WriteContext,
  spec: WriteSpec<Input, Record>,
  request: IncomingMessage,
  response: ServerResponse,
  query: URLSearchParams,
): void {
  requireScope(request, context.credentials, spec.scope);
  const keys = query.getAll('idempotencyKey');
  const parsed = idempotencyKeySchema.safeParse(keys.length === 1 ? keys[0] : undefined);
  if (!parsed.success)
    throw new HttpError(
      400,
      'invalid_request',
      'Give exactly one idempotencyKey query parameter (1–128 characters of A–Z, a–z, 0–9, ".", "_", ":" or "-").',
    );
  const record = spec.lookup(context.ledger, parsed.data);
  if (!record) throw new HttpError(404, 'not_found', `No ${spec.what} was committed under that idempotency key.`);
  sendJson(response, 200, record);
}

type Endpoint = {
  write(context: WriteContext, request: IncomingMessage, response: ServerResponse): Promise<void>;
  lookup(context: WriteContext, request: IncomingMessage, response: ServerResponse, query: URLSearchParams): void;
};

const endpoint = <Input, Record>(spec: WriteSpec<Input, Record>): Endpoint => ({
  write: (context, request, response) => handleWrite(context, spec, request, response),
  lookup: (context, request, response, query) => handleLookup(context, spec, request, response, query),
});

/** `/refunds` (payments) and `/holds` (inventory). */
export const WRITES: Record<FaultTarget, Endpoint> = { refunds: endpoint(REFUNDS), holds: endpoint(HOLDS) };
