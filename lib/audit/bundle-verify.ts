import { decodeProtectedHeader, jwtVerify } from 'jose';
import { z } from 'zod';
import { findAction } from '@/lib/actions/registry';
import { verificationKeys, type PublicJwk } from '@/lib/commands/keys';
import { canonicalJson, payloadHash } from '@/lib/payload-hash';
import { CHECKPOINT_TYP, verifyCheckpoint } from './checkpoint';
import { rowHashMatches } from './verify';

/** The evidence bundle's format name and version: a verifier refuses any other. */
export const BUNDLE_FORMAT = 'countersign.evidence-bundle/1';
const COMMAND_TYP = 'countersign-command+jwt';

const jwk = z.object({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string(), kid: z.string(), alg: z.literal('EdDSA'), use: z.literal('sig') });
const event = z.object({
  tenantId: z.string(),
  seq: z.number(),
  type: z.string(),
  actorType: z.string(),
  actorId: z.string(),
  proposalId: z.string().nullable(),
  payloadHash: z.string().nullable(),
  reasonCode: z.string().nullable(),
  contractVersion: z.number().nullable(),
  data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  occurredAt: z.string(),
  prevHash: z.string(),
  hash: z.string(),
});

export const bundleSchema = z.object({
  format: z.literal(BUNDLE_FORMAT),
  generatedAt: z.string(),
  tenant: z.string(),
  proposal: z.object({
    id: z.string(),
    status: z.string(),
    statusReason: z.string().nullable(),
    action: z.string(),
    contractVersion: z.number(),
    agentName: z.string(),
    requestId: z.string().nullable(),
    parentId: z.string().nullable(),
    risk: z.string(),
    routing: z.unknown(),
    facts: z.record(z.string(), z.union([z.string(), z.number()])),
    createdAt: z.string(),
    expiresAt: z.string(),
    decidedAt: z.string().nullable(),
  }),
  payload: z.object({ action: z.string(), contractVersion: z.number(), tenantId: z.string(), args: z.record(z.string(), z.unknown()), evidenceRefs: z.array(z.string()) }),
  canonicalPayload: z.string(),
  payloadHash: z.string(),
  rawCandidate: z.string(),
  gates: z.array(z.unknown()),
  decisions: z.array(z.object({ decision: z.enum(['approve', 'reject']), payloadHash: z.string(), userId: z.string(), name: z.string().nullable().optional(), reason: z.string().nullable(), createdAt: z.string() })),
  command: z.object({ id: z.string(), jws: z.string(), kid: z.string(), scope: z.string(), idempotencyKey: z.string() }).nullable(),
  keys: z.array(jwk),
  execution: z.object({ status: z.string(), receipt: z.unknown().nullable(), errorCode: z.string().nullable() }).nullable(),
  events: z.array(event),
  /** Every link of the tenant's chain from the proposal's first event to its last: seq, prevHash, hash. */
  links: z.array(z.object({ seq: z.number(), prevHash: z.string(), hash: z.string() })),
  /** The server's signed word on the chain at the last link. */
  checkpoint: z.string(),
});

export type EvidenceBundle = z.infer<typeof bundleSchema>;

export type BundleCheck = { check: string; ok: boolean; detail: string };

/**
 * Checks an evidence bundle offline (no database, no network): the payload re-hashes to its hash;
 * every approval names that hash; the command's signature verifies with a trusted key and its claims
 * are that payload; the receipt is the one that command asked for; every event re-hashes, names the
 * proposal, and the events sit on one unbroken run of links that a signed checkpoint vouches for.
 * `trustedKeys` (e.g. a saved `/.well-known/jwks.json`) pin the keys; without them the bundle's own
 * keys are used, which proves integrity but not origin.
 */
export async function verifyBundle(input: unknown, trustedKeys?: readonly PublicJwk[]): Promise<BundleCheck[]> {
  const parsed = bundleSchema.safeParse(input);
  if (!parsed.success) return [{ check: 'format', ok: false, detail: `not a ${BUNDLE_FORMAT} file: ${parsed.error.issues[0]?.path.join('.') || 'root'} ${parsed.error.issues[0]?.message ?? ''}` }];
  const bundle = parsed.data;
  const checks: BundleCheck[] = [];
  const check = (name: string, ok: boolean, detail: string) => checks.push({ check: name, ok, detail });
  const keys = trustedKeys ?? bundle.keys;

  // 1. The payload and its hash.
  const hash = payloadHash(bundle.payload);
  check('payload_hash', hash === bundle.payloadHash && canonicalJson(bundle.payload) === bundle.canonicalPayload && bundle.payload.tenantId === bundle.tenant, hash === bundle.payloadHash ? `the payload hashes to ${hash}` : `the payload hashes to ${hash}, not the stated ${bundle.payloadHash}`);

  // 2. Every approval names that hash.
  const approvals = bundle.decisions.filter((decision) => decision.decision === 'approve');
  const strayApproval = approvals.find((decision) => decision.payloadHash !== bundle.payloadHash);
  check('approvals_bind_hash', !strayApproval, strayApproval ? `an approval by ${strayApproval.userId} names ${strayApproval.payloadHash}` : `${approvals.length} approval(s), each naming the payload hash`);

  // 3. The command: signature with a trusted key, its own typ, and claims that are this payload.
  if (bundle.command) {
    check('command', ...(await checkCommand(bundle, keys)));
  }

  // 4. The receipt matches what the command asked for.
  if (bundle.execution?.status === 'succeeded') {
    const action = findAction(bundle.payload.action);
    const verdict = action && bundle.command ? action.validateReceipt(bundle.execution.receipt, bundle.payload.args, bundle.proposal.facts, bundle.command.idempotencyKey) : { ok: false as const, reason: 'no command or unknown action' };
    check('receipt', verdict.ok, verdict.ok ? 'the receipt is for this operation, resource, amount and idempotency key' : verdict.reason);
  }

  // 5. Events: each re-hashes, is about this proposal, and sits on the links.
  const byLink = new Map(bundle.links.map((link) => [link.seq, link]));
  const badEvent = bundle.events.find((row) => {
    const link = byLink.get(row.seq);
    return !rowHashMatches(row) || row.tenantId !== bundle.tenant || row.proposalId !== bundle.proposal.id || !link || link.hash !== row.hash || link.prevHash !== row.prevHash;
  });
  const hashedEvents = bundle.events.filter((row) => row.payloadHash !== null);
  const foreignHash = hashedEvents.find((row) => row.payloadHash !== bundle.payloadHash);
  check('events', !badEvent && !foreignHash && bundle.events.length > 0, badEvent ? `event #${badEvent.seq} does not re-hash or is not on the chain links` : foreignHash ? `event #${foreignHash.seq} names another payload hash` : `${bundle.events.length} event(s) re-hash and name this proposal`);

  // 6. The links are one unbroken run, and a signed checkpoint vouches for its end.
  const brokenLink = bundle.links.find((link, index) => index > 0 && (link.seq !== bundle.links[index - 1]!.seq + 1 || link.prevHash !== bundle.links[index - 1]!.hash));
  check('links', bundle.links.length > 0 && !brokenLink, brokenLink ? `the chain links break at #${brokenLink.seq}` : `links #${bundle.links[0]?.seq} to #${bundle.links.at(-1)?.seq} are unbroken`);
  try {
    if (decodeProtectedHeader(bundle.checkpoint).typ !== CHECKPOINT_TYP) throw new Error('typ');
    const claim = await verifyCheckpoint(bundle.checkpoint, keys);
    const last = bundle.links.at(-1);
    const ok = claim.tenant === bundle.tenant && last !== undefined && claim.seq === last.seq && claim.hash === last.hash;
    check('checkpoint', ok, ok ? `signed: the chain of ${claim.tenant} had ${claim.hash} at #${claim.seq}` : 'the signed checkpoint does not vouch for the last link');
  } catch {
    check('checkpoint', false, 'the checkpoint does not verify with the trusted keys');
  }
  return checks;
}

async function checkCommand(bundle: EvidenceBundle, keys: readonly PublicJwk[]): Promise<[boolean, string]> {
  const command = bundle.command!;
  let claims: Record<string, unknown>;
  try {
    const kid = decodeProtectedHeader(command.jws).kid;
    const key = kid ? (await verificationKeys(keys)).get(kid) : undefined;
    if (!key) return [false, `the command was signed with key "${kid ?? '(none)'}", not a trusted one`];
    ({ payload: claims } = await jwtVerify(command.jws, key, { algorithms: ['EdDSA'], typ: COMMAND_TYP }));
  } catch {
    return [false, 'the command signature does not verify'];
  }
  const fromClaims = { action: claims.action, contractVersion: claims.contractVersion, tenantId: claims.tenant, args: claims.args, evidenceRefs: claims.evidenceRefs };
  let recomputed: string;
  try {
    recomputed = payloadHash(fromClaims);
  } catch {
    return [false, 'the command claims are not a payload'];
  }
  const matches = recomputed === bundle.payloadHash && claims.payloadHash === bundle.payloadHash && claims.sub === bundle.proposal.id && claims.jti === command.id && claims.idempotencyKey === command.idempotencyKey;
  return [matches, matches ? `signed by ${command.kid}; its claims are this payload (${recomputed})` : 'the command claims differ from the payload'];
}
