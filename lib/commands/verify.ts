import { and, eq } from 'drizzle-orm';
import { compactVerify, decodeProtectedHeader, type ProtectedHeaderParameters } from 'jose';
import { z } from 'zod';
import type { Database } from '@/db';
import { commands, type Proposal, proposals } from '@/db/schema';
import type { ActionModule } from '@/lib/actions/types';
import { tenantAction } from '@/lib/definitions/catalog';
import { Refusal } from '@/lib/errors/refusal';
import { payloadHash } from '@/lib/payload-hash';
import type { VerificationKeys } from '@/lib/signing/keys';
import { audienceFor, COMMAND_LIFETIME_SECONDS, COMMAND_TYP, type CommandClaims } from './mint';

/** Allowed clock difference between the signer and the executor, each way. */
export const CLOCK_SKEW_SECONDS = 30;

const COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** Headers that would let the token choose its own verification key. */
const KEY_HEADERS = ['jku', 'x5u', 'jwk', 'x5c', 'x5t', 'x5t#S256'] as const;

const claimsSchema = z.object({
  iss: z.string(),
  aud: z.string(),
  sub: z.string().min(1).max(64),
  jti: z.string().min(1).max(64),
  iat: z.int(),
  nbf: z.int(),
  exp: z.int(),
  tenant: z.string().min(1),
  action: z.string().min(1),
  contractVersion: z.int(),
  args: z.record(z.string(), z.unknown()),
  evidenceRefs: z.array(z.string()),
  payloadHash: z.string(),
  idempotencyKey: z.string().min(1).max(128),
});

export type VerifiedCommand = {
  claims: CommandClaims;
  action: ActionModule;
  proposal: Proposal;
  kid: string;
};

export type VerifyOptions = {
  /** The executor's own scope (from its URL). */
  scope: string;
  keys: VerificationKeys;
  issuer: string;
  now: Date;
};

/**
 * docs/design.md §7, before any effect, in this order: compact form; header (alg pinned to EdDSA, no
 * key-carrying headers, kid from our own set); the signature; typ; issuer and audience; the action
 * belongs to this scope; time claims with a fixed skew; the payload hash recomputed from the
 * claims and equal to the stored proposal's; and the command row minted for exactly this token.
 * Throws a Refusal (kind `command`) naming the first check that failed.
 */
export async function verifyCommand(db: Database, jws: string, options: VerifyOptions): Promise<VerifiedCommand> {
  const { scope, keys, now } = options;
  if (!COMPACT.test(jws)) throw new Refusal('malformed', 'The body is not a compact JWS (three base64url parts).');
  let header: ProtectedHeaderParameters;
  try {
    header = decodeProtectedHeader(jws);
  } catch {
    throw new Refusal('malformed', 'The JWS protected header is not valid base64url JSON.');
  }

  if (header.alg !== 'EdDSA') throw new Refusal('alg_not_allowed', 'Only EdDSA-signed commands are accepted.');
  if (KEY_HEADERS.some((name) => name in header))
    throw new Refusal('key_header_not_allowed', 'Commands may not name or carry their own key (jku, x5u, jwk, x5c).');
  const kid = header.kid;
  const key = typeof kid === 'string' ? keys.get(kid) : undefined;
  if (!key || typeof kid !== 'string')
    throw new Refusal('unknown_kid', "The command names no key of this executor's key set.");

  let payloadBytes: Uint8Array;
  try {
    ({ payload: payloadBytes } = await compactVerify(jws, key, { algorithms: ['EdDSA'] }));
  } catch {
    throw new Refusal('bad_signature', 'The command signature does not verify.');
  }
  if (header.typ !== COMMAND_TYP) throw new Refusal('wrong_typ', `The command type must be ${COMMAND_TYP}.`);

  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payloadBytes));
  } catch {
    throw new Refusal('malformed', 'The command claims are not JSON.');
  }
  const parsed = claimsSchema.safeParse(raw);
  if (!parsed.success) throw new Refusal('malformed', 'The command claims are incomplete or of the wrong type.');
  const claims = parsed.data as CommandClaims;

  if (claims.iss !== options.issuer) throw new Refusal('wrong_issuer', 'The command was issued by someone else.');
  if (claims.aud !== audienceFor(scope))
    throw new Refusal('wrong_audience', `The command is not addressed to executor:${scope}.`);
  // A signed tenant (the signature held), so its own definitions may be read.
  const action = await tenantAction(db, claims.tenant, claims.action);
  if (!action || action.scope !== scope)
    throw new Refusal('action_not_in_scope', `The action does not belong to the ${scope} executor.`);

  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (claims.exp - claims.nbf > COMMAND_LIFETIME_SECONDS || claims.exp - claims.iat > COMMAND_LIFETIME_SECONDS) {
    throw new Refusal('command_expired', 'The command claims a lifetime longer than allowed.');
  }
  if (nowSeconds > claims.exp + CLOCK_SKEW_SECONDS) throw new Refusal('command_expired', 'The command has expired.');
  if (nowSeconds + CLOCK_SKEW_SECONDS < claims.nbf || nowSeconds + CLOCK_SKEW_SECONDS < claims.iat) {
    throw new Refusal('not_yet_valid', 'The command is not valid yet.');
  }

  const recomputed = payloadHash({
    action: claims.action,
    contractVersion: claims.contractVersion,
    tenantId: claims.tenant,
    args: claims.args,
    evidenceRefs: claims.evidenceRefs,
  });
  if (recomputed !== claims.payloadHash)
    throw new Refusal('command_hash_mismatch', 'The command payload does not hash to its payloadHash.');
  const [proposal] = await db.select().from(proposals).where(eq(proposals.id, claims.sub)).limit(1);
  if (!proposal) throw new Refusal('unknown_command', 'No such command was minted.');
  if (proposal.tenantId !== claims.tenant || proposal.payloadHash !== recomputed) {
    throw new Refusal('command_hash_mismatch', 'The command payload is not the approved one.');
  }

  const [row] = await db
    .select({ jws: commands.jws, scope: commands.scope })
    .from(commands)
    .where(
      and(
        eq(commands.id, claims.jti),
        eq(commands.proposalId, claims.sub),
        eq(commands.idempotencyKey, claims.idempotencyKey),
      ),
    )
    .limit(1);
  if (!row || row.scope !== scope || row.jws !== jws)
    throw new Refusal('unknown_command', 'No such command was minted.');

  return { claims, action, proposal, kid };
}
