import canonicalize from 'canonicalize';
import { sha256Hex } from './digest';
import { type KeySource, keySetOf } from './key-set';
import { Rejected } from './rejected';
import { allIntegers, allStrings, readSigned, type SharedRejection } from './signed';

export const COMMAND_TYP = 'countersign-command+jwt';
/** Allowed clock difference between Countersign and the executor, each way. */
export const CLOCK_SKEW_SECONDS = 30;
/** A command lives at most this long (docs/design.md §7). */
export const COMMAND_LIFETIME_SECONDS = 300;

export type CommandRejectedCode = SharedRejection | 'malformed' | 'not_yet_valid' | 'hash_mismatch';

/** A command that must not be executed; `code` names the first check that failed. */
export class CommandRejected extends Rejected<CommandRejectedCode> {
  override name = 'CommandRejected';
}

/** What an approved proposal's command says (docs/commands.md). */
export type CommandClaims = {
  iss: string;
  /** `executor:<scope>`. */
  aud: string;
  /** The proposal id. */
  sub: string;
  /** The command id (what reconciliation asks about). */
  jti: string;
  iat: number;
  nbf: number;
  exp: number;
  tenant: string;
  action: string;
  contractVersion: number;
  args: Record<string, unknown>;
  evidenceRefs: string[];
  /** `sha256:<hex>` of the JCS of the approved payload. */
  payloadHash: string;
  /** The key to perform the effect under: stable across re-mints of the same approval. */
  idempotencyKey: string;
};

export type VerifyCommandOptions = {
  /** Countersign's keys: a JWKS, or the URL of its /.well-known/jwks.json. */
  jwks: KeySource;
  /** This executor's scope: the command's audience must be `executor:<scope>`. */
  scope: string;
  /** Countersign's issuer (its APP_URL). Leave it out to accept any issuer the keys sign for. */
  issuer?: string;
  now?: Date;
};

const STRING_CLAIMS = ['iss', 'aud', 'sub', 'jti', 'tenant', 'action', 'payloadHash', 'idempotencyKey'] as const;
const INTEGER_CLAIMS = ['iat', 'nbf', 'exp', 'contractVersion'] as const;

function isCommand(claims: Record<string, unknown>): claims is CommandClaims {
  const { args, evidenceRefs } = claims;
  return (
    allStrings(claims, STRING_CLAIMS) &&
    allIntegers(claims, INTEGER_CLAIMS) &&
    !!args &&
    typeof args === 'object' &&
    !Array.isArray(args) &&
    Array.isArray(evidenceRefs) &&
    evidenceRefs.every((ref) => typeof ref === 'string')
  );
}

/** Exactly Countersign's payload hash: "sha256:" + hex(SHA-256(JCS of the normalized payload)). */
async function payloadHashOf(claims: CommandClaims): Promise<string> {
  const { action, contractVersion, tenant, args, evidenceRefs } = claims;
  let text: string | undefined;
  try {
    text = canonicalize({ action, contractVersion, tenantId: tenant, args, evidenceRefs });
  } catch {
    // A value RFC 8785 cannot write (a lone surrogate): no payload Countersign could have hashed.
    text = undefined;
  }
  if (text === undefined) throw new CommandRejected('malformed', 'The command payload cannot be canonicalized.');
  return `sha256:${await sha256Hex(text)}`;
}

/**
 * Verifies a command before any effect, in this order: compact form, alg EdDSA, no key-carrying
 * header, a kid of Countersign's set, the signature, `typ`, the claims' shape, issuer, audience,
 * time (30 s skew, lifetime at most 5 minutes) and the payload hash recomputed from the claims.
 * Answers the claims, or throws CommandRejected.
 */
export async function verifyCommand(jws: string, options: VerifyCommandOptions): Promise<CommandClaims> {
  const fail = (code: CommandRejectedCode, message: string) => new CommandRejected(code, message);
  const claims = await readSigned(jws, keySetOf(options.jwks), COMMAND_TYP, fail);
  if (!isCommand(claims)) throw fail('malformed', 'The command claims are incomplete or of the wrong type.');
  if (options.issuer !== undefined && claims.iss !== options.issuer)
    throw fail('wrong_issuer', 'The command was issued by someone else.');
  if (claims.aud !== `executor:${options.scope}`)
    throw fail('wrong_audience', `The command is not addressed to executor:${options.scope}.`);

  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (claims.exp - claims.nbf > COMMAND_LIFETIME_SECONDS || claims.exp - claims.iat > COMMAND_LIFETIME_SECONDS)
    throw fail('expired', 'The command claims a lifetime longer than allowed.');
  if (now > claims.exp + CLOCK_SKEW_SECONDS) throw fail('expired', 'The command has expired.');
  if (now + CLOCK_SKEW_SECONDS < claims.nbf || now + CLOCK_SKEW_SECONDS < claims.iat)
    throw fail('not_yet_valid', 'The command is not valid yet.');

  if ((await payloadHashOf(claims)) !== claims.payloadHash)
    throw fail('hash_mismatch', 'The command payload does not hash to its payloadHash.');
  return claims;
}
