import { z } from 'zod';

/**
 * Every kind of id and the one pattern each is checked against. Client-safe (no Node modules):
 * the dashboard checks ids too.
 */

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** The prefixes of the ids we mint, one per kind of row or message. */
export type IdPrefix =
  | 'att'
  | 'chl'
  | 'chn'
  | 'cmd'
  | 'dec'
  | 'ecd'
  | 'exe'
  | 'g'
  | 'hold'
  | 'idem'
  | 'inv'
  | 'key'
  | 'msg'
  | 'obx'
  | 'pol'
  | 'prp'
  | 'psk'
  | 're'
  | 'ses'
  | 'usr';

/** A random, prefixed identifier (`prp_…`, `usr_…`): 20 characters of base32, 100 bits. */
export function newId(prefix: IdPrefix): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte & 31];
  return `${prefix}_${out}`;
}

const MINTED_BODY = '[0-9a-z]{1,64}';
/** An id of ours, of any kind (`prp_…`, `att_…`): a short lower-case prefix, `_`, lower-case letters and digits. */
export const ROW_ID = new RegExp(`^[a-z]{1,8}_${MINTED_BODY}$`);
/** A proposal's id (`prp_…`). */
export const PROPOSAL_ID = new RegExp(`^prp_${MINTED_BODY}$`);

/** A tenant's id, chosen by an admin: lower-case letters, digits and `-`, 2–40 characters, not starting with `-`. */
export const TENANT_ID = /^[a-z0-9][a-z0-9-]{1,39}$/;

const REQUEST_ID_CLASS = 'A-Za-z0-9._:-';
export const REQUEST_ID_MAX_LENGTH = 128;
/**
 * An id an agent chooses (`requestId`, `repairOf`; docs/design.md §4), also the idempotency key a
 * system of record is sent: 1–128 characters of `[A-Za-z0-9._:-]`.
 */
export const REQUEST_ID = new RegExp(`^[${REQUEST_ID_CLASS}]{1,${REQUEST_ID_MAX_LENGTH}}$`);
const REQUEST_ID_CHARACTERS = new RegExp(`^[${REQUEST_ID_CLASS}]+$`);
const NOT_A_REQUEST_ID_CHARACTER = new RegExp(`[^${REQUEST_ID_CLASS}]`, 'g');

export const isRowId = (value: string): boolean => ROW_ID.test(value);
export const isProposalId = (value: string): boolean => PROPOSAL_ID.test(value);
/** A standing grant's id (`g_…`). */
export const GRANT_ID = new RegExp(`^g_${MINTED_BODY}$`);
export const isGrantId = (value: string): boolean => GRANT_ID.test(value);
export const isTenantId = (value: string): boolean => TENANT_ID.test(value);
export const isRequestId = (value: unknown): value is string => typeof value === 'string' && REQUEST_ID.test(value);

/**
 * A request id as a schema: length and characters are checked apart, so an agent sending a long one
 * is told it is too long rather than that it does not match.
 */
export const requestIdSchema = z
  .string()
  .min(1)
  .max(REQUEST_ID_MAX_LENGTH)
  .regex(REQUEST_ID_CHARACTERS, `must be 1–${REQUEST_ID_MAX_LENGTH} characters of A–Z, a–z, 0–9, ".", "_", ":" or "-"`);

/** Any text made into a request id: characters outside the set become `_`, and it is cut to the maximum length. */
export const toRequestId = (text: string): string =>
  text.replace(NOT_A_REQUEST_ID_CHARACTER, '_').slice(0, REQUEST_ID_MAX_LENGTH);
