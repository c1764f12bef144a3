import { decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';
import type { PublicJwk, SigningKey } from '@/lib/signing/keys';
import { verificationKeys } from '@/lib/signing/keys';
import type { CheckpointClaim } from './verify';

/** The JWS `typ` of a checkpoint: never accepted where a command is expected, nor the reverse. */
export const CHECKPOINT_TYP = 'countersign-checkpoint+jwt';

const claimSchema = z.strictObject({
  tenant: z.string().min(1).max(64),
  seq: z.int().min(0),
  hash: z.string().regex(/^sha256:([0-9a-f]{64}|genesis)$/),
  at: z.iso.datetime(),
});

/** Signs `{tenant, seq, hash, at}`: the server's word that the tenant's chain had this hash at this seq. */
export function signCheckpoint(claim: CheckpointClaim, key: SigningKey): Promise<string> {
  return new SignJWT({ ...claimSchema.parse(claim) })
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: CHECKPOINT_TYP })
    .sign(key.key);
}

export class CheckpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckpointError';
  }
}

/**
 * Verifies a checkpoint against public keys (a JWKS the auditor trusts): EdDSA only, its own
 * `typ`, a known `kid`, exactly the four claims. Answers the claim, or throws CheckpointError.
 */
export async function verifyCheckpoint(jws: string, keys: readonly PublicJwk[]): Promise<CheckpointClaim> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(jws).kid;
  } catch {
    throw new CheckpointError('the checkpoint is not a compact JWS');
  }
  const key = kid ? (await verificationKeys(keys)).get(kid) : undefined;
  if (!key)
    throw new CheckpointError(
      `the checkpoint was signed with key "${kid ?? '(none)'}", which is not among the trusted keys`,
    );
  try {
    const { payload } = await jwtVerify(jws, key, { algorithms: ['EdDSA'], typ: CHECKPOINT_TYP });
    return claimSchema.parse(payload);
  } catch {
    throw new CheckpointError('the checkpoint signature or claims do not verify');
  }
}

const publicKey = z.object({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string(),
  kid: z.string(),
  alg: z.literal('EdDSA'),
  use: z.literal('sig'),
});

/** A saved `/.well-known/jwks.json`. */
export const jwksFileSchema = z.object({ keys: z.array(publicKey).min(1) });

/**
 * What `GET /api/v1/audit/checkpoint` answers and an auditor saves: the JWS, its claims and the keys
 * that verify it; files saved since the log format also carry the same head as a signed note
 * (`note`, checked with `verifyCheckpoint` of lib/audit/tlog/note.ts) and its `origin`.
 */
export const checkpointFileSchema = z.object({
  checkpoint: z.string(),
  note: z.string().optional(),
  origin: z.string().optional(),
  keys: z.array(publicKey).min(1),
});

export type CheckpointFile = z.infer<typeof checkpointFileSchema>;
