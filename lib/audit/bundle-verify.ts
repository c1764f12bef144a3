import { decodeProtectedHeader, jwtVerify } from 'jose';
import { z } from 'zod';
import { findAction } from '@/lib/actions/registry';
import { verificationKeys, type PublicJwk } from '@/lib/commands/keys';
import { canonicalJson, payloadHash } from '@/lib/payload-hash';
import { checkPasskeyDecisions, type PasskeyCheck } from './bundle-passkeys';
import { actorLabel, storyOf, UNVERIFIED_FIELDS, type Story } from './bundle-story';
import { CHECKPOINT_TYP, verifyCheckpoint } from './checkpoint';
import { chainRowSchema, describeBreak, rowHashMatches, verifyChain } from './verify';

/** The evidence bundle's format name and version: a verifier refuses any other. */
export const BUNDLE_FORMAT = 'countersign.evidence-bundle/2';
const COMMAND_TYP = 'countersign-command+jwt';

const jwk = z.object({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string(), kid: z.string(), alg: z.literal('EdDSA'), use: z.literal('sig') });

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
    routing: z.object({ rule: z.string(), policyVersion: z.number(), outcome: z.string(), approvals: z.number() }).loose(),
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
  /** The proposal's audit events, oldest first: what the verifier reads the story from. */
  events: z.array(chainRowSchema),
  /**
   * Every other event of the tenant's chain between the proposal's first and last, in full (events
   * carry ids, codes and hashes, never payload values or evidence): with them the chain re-hashes
   * from the first event to the last, so none of the proposal's can be left out or slipped in.
   */
  interleaved: z.array(chainRowSchema),
  /** The server's signed word on the chain at the proposal's last event. */
  checkpoint: z.string(),
  /**
   * The `passkey.registered` events of the tenant for each passkey that signed a decision: each
   * binds the credential and its public key to a person (docs/passkeys.md).
   */
  passkeyRegistrations: z.array(chainRowSchema).default([]),
});

export type EvidenceBundle = z.infer<typeof bundleSchema>;

export type BundleCheck = { check: string; ok: boolean; detail: string };

export type BundleReport = {
  checks: BundleCheck[];
  /** What the verified events say, in words; meaningful only when every check passed. */
  verified: string[];
  /** Fields the bundle shows that no hash or signature covers. */
  unverified: string[];
};

/**
 * Checks an evidence bundle offline (no database, no network). The proposal's events must re-hash,
 * start with its creation and, with the interleaved events of the tenant, make one unbroken chain
 * that a signed checkpoint vouches for at its last event: then nothing was dropped, added or
 * changed. Everything the bundle summarizes is held against those events — decisions (actor, type,
 * payload hash, time, recorded name), status, execution outcome, agent, routing rule — or
 * recomputed (payload hash, risk), and the command and receipt are checked against the payload.
 * What none of that covers is listed as unverified. `trustedKeys` (e.g. a saved
 * `/.well-known/jwks.json`) pin the keys; without them the bundle's own keys are used, which
 * proves integrity but not origin.
 */
export async function verifyBundle(input: unknown, trustedKeys?: readonly PublicJwk[]): Promise<BundleReport> {
  const parsed = bundleSchema.safeParse(input);
  if (!parsed.success) {
    return { checks: [{ check: 'format', ok: false, detail: `not a ${BUNDLE_FORMAT} file: ${parsed.error.issues[0]?.path.join('.') || 'root'} ${parsed.error.issues[0]?.message ?? ''}` }], verified: [], unverified: [] };
  }
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

  // 5. Events: each re-hashes, is about this proposal and this payload, and the first is its creation.
  const badEvent = bundle.events.find((row) => !rowHashMatches(row) || row.tenantId !== bundle.tenant || row.proposalId !== bundle.proposal.id);
  const foreignHash = bundle.events.find((row) => row.payloadHash !== null && row.payloadHash !== bundle.payloadHash);
  const startsWithCreation = bundle.events[0]?.type === 'proposal.created';
  check(
    'events',
    !badEvent && !foreignHash && startsWithCreation,
    badEvent ? `event #${badEvent.seq} does not re-hash or is not about this proposal` : foreignHash ? `event #${foreignHash.seq} names another payload hash` : !startsWithCreation ? 'the events do not start with proposal.created' : `${bundle.events.length} event(s) re-hash and name this proposal`,
  );

  // 6. With the interleaved events, one unbroken chain from the first event to the last.
  const chain = [...bundle.events, ...bundle.interleaved].sort((a, b) => a.seq - b.seq);
  const first = bundle.events[0];
  const last = bundle.events.at(-1);
  const stray = bundle.interleaved.find((row) => row.proposalId === bundle.proposal.id || row.tenantId !== bundle.tenant);
  const verdict = first ? verifyChain(chain, { seq: first.seq - 1, hash: first.prevHash }) : undefined;
  const chainOk = !stray && verdict?.ok === true && verdict.last.seq === last?.seq;
  check(
    'chain',
    chainOk,
    stray
      ? `interleaved event #${stray.seq} is about this proposal or another tenant (every event of the proposal belongs in events)`
      : !verdict
        ? 'there are no events'
        : !verdict.ok
          ? `the chain breaks at #${verdict.seq}: ${describeBreak(verdict.reason)} (an event was dropped, added or changed)`
          : verdict.last.seq !== last?.seq
            ? `the chain runs past the proposal's last event #${last?.seq}`
            : `events #${first?.seq} to #${last?.seq} re-hash as one unbroken chain (${bundle.events.length} of this proposal, ${bundle.interleaved.length} of others)`,
  );

  // 7. A signed checkpoint vouches for the chain at the proposal's last event.
  let signed: { kid: string | undefined; at: string } | undefined;
  try {
    if (decodeProtectedHeader(bundle.checkpoint).typ !== CHECKPOINT_TYP) throw new Error('typ');
    const claim = await verifyCheckpoint(bundle.checkpoint, keys);
    const ok = claim.tenant === bundle.tenant && last !== undefined && claim.seq === last.seq && claim.hash === last.hash;
    if (ok) signed = { kid: decodeProtectedHeader(bundle.checkpoint).kid, at: claim.at };
    check('checkpoint', ok, ok ? `signed: the chain of ${claim.tenant} had ${claim.hash} at #${claim.seq}` : "the signed checkpoint does not vouch for the proposal's last event");
  } catch {
    check('checkpoint', false, 'the checkpoint does not verify with the trusted keys');
  }

  // 8. The bundle's summary, held against what the events say.
  const story = storyOf(bundle.events);
  check('decisions', ...checkDecisions(bundle, story));
  check('status', story.status?.status === bundle.proposal.status, story.status ? `the events lead to ${story.status.status} (event #${story.status.seq}); the bundle says ${bundle.proposal.status}` : 'no event sets a status');
  check('execution', ...checkExecution(bundle, story));
  check('proposal', ...checkProposal(bundle, story));

  // 9. Each passkey-signed decision: the WebAuthn signature over its statement, offline.
  const created = story.created;
  const signedDecisions = await checkPasskeyDecisions({ tenant: bundle.tenant, events: bundle.events, registrations: bundle.passkeyRegistrations, revisionOf: typeof created?.data.parent === 'string' ? created.data.parent : null });
  if (signedDecisions.length > 0) {
    const bad = signedDecisions.find((signed) => !signed.ok);
    check('passkeys', !bad, bad ? `event #${bad.seq}: ${bad.label} ${bad.detail}` : signedDecisions.map((signed) => `${signed.label} ${signed.detail}`).join('; '));
  }

  const unverified: string[] = [...UNVERIFIED_FIELDS];
  for (const decision of story.decisions) if (!decision.name) unverified.push(`the name of ${decision.userId} (event #${decision.seq} was written before names were recorded)`);
  for (const registration of bundle.passkeyRegistrations) unverified.push(`the place in the chain of passkey registration #${registration.seq} (it re-hashes; the tenant's full export shows it is linked)`);
  if (!trustedKeys) unverified.push("keys (the bundle's own: they prove integrity, not who signed; pin them with --keys)");
  return { checks, verified: signed ? storyLines(bundle, story, signed, signedDecisions) : [], unverified };
}

/** Each decision of the bundle is one decision event (same person, decision, payload hash, time and recorded name), and none is missing. */
function checkDecisions(bundle: EvidenceBundle, story: Story): [boolean, string] {
  const unmatched = [...story.decisions];
  for (const decision of bundle.decisions) {
    const index = unmatched.findIndex(
      (event) =>
        event.userId === decision.userId &&
        event.decision === decision.decision &&
        event.payloadHash === decision.payloadHash &&
        event.at === new Date(decision.createdAt).toISOString() &&
        (event.name === null || event.name === decision.name),
    );
    if (index < 0) return [false, `the ${decision.decision} by ${actorLabel(decision.name, decision.userId)} has no matching event (person, decision, payload hash, time and name)`];
    unmatched.splice(index, 1);
  }
  if (unmatched.length > 0) return [false, `event #${unmatched[0]!.seq} records a ${unmatched[0]!.decision} the bundle's decisions leave out`];
  return [true, `${bundle.decisions.length} decision(s), each matching its event`];
}

function checkExecution(bundle: EvidenceBundle, story: Story): [boolean, string] {
  const stated = bundle.execution?.status ?? null;
  const recorded = story.execution?.status ?? null;
  // A started execution without an outcome event is still running: the bundle says `executing`.
  const expected = recorded ?? (story.status?.status === 'executing' ? 'executing' : null);
  return [stated === expected, `the events record ${expected ?? 'no execution'}; the bundle says ${stated ?? 'no execution'}`];
}

/** Action, version, agent, parent and creation time from the creation event; risk recomputed; routing rule, outcome and approvals from the events. */
function checkProposal(bundle: EvidenceBundle, story: Story): [boolean, string] {
  const { proposal, payload } = bundle;
  const created = story.created;
  if (!created) return [false, 'there is no proposal.created event'];
  let risk: string | undefined;
  try {
    risk = findAction(payload.action)?.risk(payload.args);
  } catch {
    risk = undefined;
  }
  const wrong = [
    proposal.action !== payload.action || created.data.action !== payload.action ? 'action' : undefined,
    proposal.contractVersion !== payload.contractVersion || created.contractVersion !== payload.contractVersion ? 'contractVersion' : undefined,
    proposal.agentName !== created.data.agent ? 'agentName' : undefined,
    (proposal.parentId ?? null) !== (created.data.parent ?? null) ? 'parentId' : undefined,
    new Date(proposal.createdAt).toISOString() !== new Date(created.occurredAt).toISOString() ? 'createdAt' : undefined,
    risk !== proposal.risk ? 'risk' : undefined,
    proposal.routing.rule !== created.data.rule || proposal.routing.policyVersion !== created.data.policyVersion || proposal.routing.outcome !== created.reasonCode ? 'routing' : undefined,
    story.required !== undefined && proposal.routing.approvals !== story.required ? 'routing.approvals' : undefined,
  ].filter((field): field is string => field !== undefined);
  return wrong.length === 0
    ? [true, `action, agent, parent, creation time and routing match event #${created.seq}; risk ${risk} recomputed from the payload`]
    : [false, `${wrong.join(', ')} ${wrong.length === 1 ? 'differs' : 'differ'} from the events (or, for risk, from the payload)`];
}

/** The verified story in words: only what the checks above vouch for. */
function storyLines(bundle: EvidenceBundle, story: Story, signed: { kid: string | undefined; at: string }, passkeys: readonly PasskeyCheck[]): string[] {
  const withPasskey = new Map(passkeys.map((check) => [check.seq, ` ${check.detail}`]));
  const created = story.created;
  const lines = [
    `proposal ${bundle.proposal.id} (${bundle.tenant}): ${bundle.payload.action} v${bundle.payload.contractVersion}, payload ${bundle.payloadHash}, risk ${bundle.proposal.risk}`,
    created
      ? `proposed by ${created.actorType} ${actorLabel(created.actorName, created.actorId)} at ${new Date(created.occurredAt).toISOString()}`
      : 'proposed: no event',
    `routing: rule "${bundle.proposal.routing.rule}" of policy v${bundle.proposal.routing.policyVersion}, ${bundle.proposal.routing.outcome}${story.required !== undefined ? `, ${story.required} approval(s) required` : ''}`,
    ...story.decisions.map((decision) => `${decision.decision === 'approve' ? 'approved' : 'rejected'} by ${actorLabel(decision.name, decision.userId)}${withPasskey.get(decision.seq) ?? ''} at ${decision.at} (event #${decision.seq})`),
    ...(story.grant ? [`approved under grant ${story.grant.grantId} from ${actorLabel(story.grant.name, story.grant.userId)} at ${story.grant.at} (event #${story.grant.seq}); no person looked at it`] : []),
    `status: ${bundle.proposal.status} (event #${story.status?.seq})`,
    story.execution ? `execution: ${story.execution.status} at ${story.execution.at} (event #${story.execution.seq})${story.execution.status === 'succeeded' ? ', the receipt matches the signed command' : ''}` : `execution: ${bundle.execution?.status ?? 'none'}`,
    `chain: events #${bundle.events[0]?.seq} to #${bundle.events.at(-1)?.seq} of ${bundle.tenant}, vouched for by a checkpoint signed with ${signed.kid ?? '(no kid)'} at ${signed.at}`,
  ];
  return lines;
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
