import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonBody, sendJson } from './http';
import { saveLedgers } from './persistence';
import { faultRequestSchema } from './schemas';
import { parseBody, type WriteContext } from './writes';
import { seededLedgers } from './world';

/** Test-mode endpoints (404 unless the service was started with testMode). No credential needed. */

/** `POST /__faults {target, mode, times?}`: queue faults for the next writes to `target`. */
export async function queueFault(context: WriteContext, request: IncomingMessage, response: ServerResponse): Promise<void> {
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

/** `POST /__reset`: the seeded world again, and no queued faults. */
export function resetWorld(context: WriteContext, response: ServerResponse): void {
  const seeded = seededLedgers();
  if (context.dataFile) saveLedgers(context.dataFile, seeded);
  context.ledger.restore(seeded);
  context.faults.clear();
  sendJson(response, 200, { status: 'reset' });
}
