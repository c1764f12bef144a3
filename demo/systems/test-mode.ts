import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_EVIDENCE_TEXT_CHARS } from '@/lib/gates/evidence';
import { HttpError, readJsonBody, sendJson } from './http';
import { saveLedgers } from './persistence';
import { evidenceRequestSchema, faultRequestSchema } from './schemas';
import { seededLedgers } from './world';
import { parseBody, type WriteContext } from './writes';

/** Test-mode endpoints (404 unless the service was started with testMode). No credential needed. */

/** `POST /__faults {target, mode, times?}`: queue faults for the next writes to `target`. */
export async function queueFault(
  context: WriteContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const fault = parseBody(faultRequestSchema, await readJsonBody(request));
  context.faults.push(fault.target, fault.mode, fault.times);
  sendJson(response, 200, { pending: context.faults.pending() });
}

/** `GET /__faults`: the faults still queued, per target, in order. */
export function listFaults(context: WriteContext, response: ServerResponse): void {
  sendJson(response, 200, { pending: context.faults.pending() });
}

/** `DELETE /__faults`: forget every queued fault. */
export function clearFaults(context: WriteContext, response: ServerResponse): void {
  context.faults.clear();
  sendJson(response, 200, { pending: context.faults.pending() });
}

/**
 * A body of `POST /__evidence` may be larger than other bodies: 20,000 characters of text, each
 * perhaps sent as a six-byte `\uXXXX` escape, and the other fields.
 */
export const EVIDENCE_BODY_LIMIT_BYTES = 6 * MAX_EVIDENCE_TEXT_CHARS + 4096;

/**
 * `POST /__evidence {id, tenant, kind, text}`: one more evidence record, served by `GET
 * /evidence/:id` until `POST /__reset` (in memory only, never in the data file). 409 when the id is
 * taken: a test never replaces a record another relies on.
 */
export async function addEvidence(
  context: WriteContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const evidence = parseBody(evidenceRequestSchema, await readJsonBody(request, EVIDENCE_BODY_LIMIT_BYTES));
  if (!context.ledger.addEvidence(evidence))
    throw new HttpError(409, 'evidence_exists', 'An evidence record with this id already exists; nothing was added.');
  sendJson(response, 201, evidence);
}

/** `POST /__reset`: the seeded world again, without added evidence, and no queued faults. */
export function resetWorld(context: WriteContext, response: ServerResponse): void {
  const seeded = seededLedgers();
  if (context.dataFile) saveLedgers(context.dataFile, seeded);
  context.ledger.restore(seeded);
  context.ledger.forgetAddedEvidence();
  context.faults.clear();
  sendJson(response, 200, { status: 'reset' });
}
