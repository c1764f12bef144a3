import { payloadHash } from '@/lib/payload-hash';

/**
 * What an execution's outcome event records of its receipt (docs/evidence.md): sha256 of the
 * receipt's JCS, or null when the execution has none. A bundle verifier holds the receipt it is
 * shown against it, so no field of a receipt can change unnoticed.
 */
export function receiptHash(receipt: unknown): string | null {
  return receipt === null || receipt === undefined ? null : payloadHash(receipt);
}
