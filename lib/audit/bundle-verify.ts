import { compactVerify, decodeProtectedHeader } from 'jose';
import { z } from 'zod';
import { findAction } from '@/lib/actions/registry';
import type { ActionModule } from '@/lib/actions/types';
import { audienceFor, COMMAND_LIFETIME_SECONDS, COMMAND_TYP } from '@/lib/commands/mint';
import { receiptHash } from '@/lib/commands/receipt-hash';
import { CLOCK_SKEW_SECONDS } from '@/lib/commands/verify';
import { definedAction } from '@/lib/definitions/module';
import { checkDefinition } from '@/lib/definitions/parse';
import { canonicalJson, payloadHash } from '@/lib/payload-hash';
import { type PublicJwk, verificationKeys } from '@/lib/signing/keys';
import { checkPasskeyDecisions, isSigned, type PasskeyCheck, type PinnedPeople } from './bundle-passkeys';
import { actorLabel, countedApprovals, decisionWords, type Story, storyOf, UNVERIFIED_FIELDS } from './bundle-story';
import { type VerifiedCheckpoint, verifyCheckpoint } from './tlog/note';
import { originTenant } from './tlog/origin';
import { inclusionProofSchema, ProofError, verifyEventInclusion } from './tlog/proofs';
import { type ChainRow, chainRowSchema, rowHashMatches } from './verify';

/** The evidence bundle's format name and version: a verifier refuses any other. */
export const BUNDLE_FORMAT = 'countersign.evidence-bundle/4';

const jwk = z.object({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string(),
  kid: z.string(),
  alg: z.literal('EdDSA'),
  use: z.literal('sig'),
});

/**
 * An event as a bundle carries it: its hashed fields, its hash, and the proof that it is a leaf of the checkpoint's
 * tree.
 */
const provenRowSchema = chainRowSchema.extend({ inclusion: inclusionProofSchema });

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
    routing: z
      .object({ rule: z.string(), policyVersion: z.number(), outcome: z.string(), approvals: z.number() })
      .loose(),
    facts: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    createdAt: z.string(),
    expiresAt: z.string(),
    decidedAt: z.string().nullable(),
  }),
  payload: z.object({
    action: z.string(),
    contractVersion: z.number(),
    tenantId: z.string(),
    args: z.record(z.string(), z.unknown()),
    evidenceRefs: z.array(z.string()),
  }),
  canonicalPayload: z.string(),
  payloadHash: z.string(),
  rawCandidate: z.string(),
  gates: z.array(z.unknown()),
  decisions: z.array(
    z.object({
      decision: z.enum(['approve', 'reject']),
      payloadHash: z.string(),
      userId: z.string(),
      name: z.string().nullable().optional(),
      reason: z.string().nullable(),
      createdAt: z.string(),
      withdrawnAt: z.string().nullable(),
    }),
  ),
  command: z
    .object({ id: z.string(), jws: z.string(), kid: z.string(), scope: z.string(), idempotencyKey: z.string() })
    .nullable(),
  keys: z.array(jwk),
  execution: z
    .object({ status: z.string(), receipt: z.unknown().nullable(), errorCode: z.string().nullable() })
    .nullable(),
  /**
   * The proposal's audit events in sequence order (gaps between them are other proposals' events,
   * which a bundle never carries), each with its inclusion proof in the checkpoint's tree: what the
   * verifier reads the story from.
   */
  events: z.array(provenRowSchema),
  /** The server's checkpoint of the tenant's log at bundle time: a C2SP tlog-checkpoint signed note. */
  checkpoint: z.string(),
  /**
   * The `passkey.registered` events of the tenant for each passkey that signed a decision, each with
   * its inclusion proof: each binds the credential and its public key to a person (docs/passkeys.md).
   */
  passkeyRegistrations: z.array(provenRowSchema),
  /**
   * A tenant's declared action (docs/actions.md): the definition the proposal was gated by, and its
   * `action.published` event with its inclusion proof, which binds the document by its hash.
   */
  definition: z.object({ document: z.record(z.string(), z.unknown()), published: provenRowSchema }).nullable(),
});

export type EvidenceBundle = z.infer<typeof bundleSchema>;

export type BundleCheck = { check: string; ok: boolean; detail: string };

export type BundleReport = {
  checks: BundleCheck[];
  /** What the verified events say, in words; meaningful only when every check passed. */
  verified: string[];
  /** Fields the bundle shows that no hash or signature covers, each line starting with its JSON path. */
  unverified: string[];
};

/**
 * Checks an evidence bundle offline (no database, no network, and never the verifier's clock: the
 * answer is the same a year later). The checkpoint must be a signed note of the tenant's log by a
 * trusted key; each event (and each passkey registration) must re-hash from its fields and prove its
 * inclusion in the checkpoint's tree; the proposal's events must be in sequence order and start
 * with its creation. Everything the bundle summarizes is held against those events — decisions
 * (actor, type, payload hash, time, recorded name, withdrawal), status, execution outcome and receipt
 * hash, agent, routing rule — or recomputed (payload hash, risk), and the command's signature and
 * claims are checked against the payload and its time claims against the recorded execution. What
 * none of that covers is listed as unverified. `trustedKeys` (e.g. a saved `/.well-known/jwks.json`)
 * pin the keys; without them the bundle's own keys are used, which proves integrity but not origin.
 * `people` (`--passkeys people.json`) pins the passkeys people gave the auditor themselves.
 */
export async function verifyBundle(
  input: unknown,
  trustedKeys?: readonly PublicJwk[],
  people?: PinnedPeople,
): Promise<BundleReport> {
  const parsed = bundleSchema.safeParse(input);
  if (!parsed.success) {
    return {
      checks: [
        {
          check: 'format',
          ok: false,
          detail:
            `not a ${BUNDLE_FORMAT} file: ${parsed.error.issues[0]?.path.join('.') || 'root'} ` +
            `${parsed.error.issues[0]?.message ?? ''}`,
        },
      ],
      verified: [],
      unverified: [],
    };
  }
  const bundle = parsed.data;
  const keys = trustedKeys ?? bundle.keys;
  const checks: BundleCheck[] = [];
  const check = (name: string, [ok, detail]: [boolean, string]) => checks.push({ check: name, ok, detail });
  // The story is read from the events only once they are in sequence order (checked in `events`).
  const story = storyOf(bundle.events);
  const signed = signedHead(bundle, keys);
  const inclusion = includedRows(bundle, signed.head);
  // A declared action is checked by the definition the bundle proves; a shipped one by its module.
  const declared = definitionOf(bundle, story, inclusion.includes);
  const action = findAction(bundle.payload.action) ?? declared?.action;

  check('payload_hash', checkPayload(bundle));
  check('approvals_bind_hash', checkApprovalHashes(bundle));
  check('command', await checkCommand(bundle, keys));
  if (bundle.execution) check('receipt', checkReceipt(bundle, story, action));
  check('events', checkEvents(bundle));
  check('checkpoint', signed.result);
  check('inclusion', inclusion.result);
  check('decisions', checkDecisions(bundle, story));
  check('status', checkStatus(bundle, story));
  check('execution', checkExecution(bundle, story));
  if (declared) check('definition', declared.result);
  check('proposal', checkProposal(bundle, story, action));

  // Each passkey-signed decision: the WebAuthn signature over its statement, offline, and what binds the key.
  const created = story.created;
  const signedDecisions = await checkPasskeyDecisions({
    tenant: bundle.tenant,
    events: bundle.events,
    registrations: bundle.passkeyRegistrations,
    revisionOf: typeof created?.data.parent === 'string' ? created.data.parent : null,
    inChain: inclusion.includes,
    people,
  });
  if (signedDecisions.length > 0 || bundle.passkeyRegistrations.length > 0)
    check('passkeys', passkeyVerdict(bundle, signedDecisions));

  const unverified: string[] = [...UNVERIFIED_FIELDS];
  bundle.decisions.forEach((decision, index) => {
    if (story.decisions[index] && !story.decisions[index].name)
      unverified.push(
        `decisions[${index}].name (event #${story.decisions[index].seq} was written before names were recorded)`,
      );
  });
  const outcome = story.execution && bundle.events.find((row) => row.seq === story.execution!.seq);
  if (bundle.execution && outcome && !('receiptHash' in outcome.data))
    unverified.push(
      `execution.receipt (outcome event #${outcome.seq} was written before receipts were hashed into it)`,
    );
  for (const decision of signedDecisions) unverified.push(...decision.unverified);
  unverified.push(
    trustedKeys
      ? "keys (the bundle's own: not used, the keys given with --keys were)"
      : "keys (the bundle's own: they prove integrity, not who signed; pin them with --keys)",
  );
  const verified =
    signed.head && checks.every((entry) => entry.ok) ? storyLines(bundle, story, signed.head, signedDecisions) : [];
  return { checks, verified, unverified };
}

function checkPayload(bundle: EvidenceBundle): [boolean, string] {
  const hash = payloadHash(bundle.payload);
  const ok =
    hash === bundle.payloadHash &&
    canonicalJson(bundle.payload) === bundle.canonicalPayload &&
    bundle.payload.tenantId === bundle.tenant;
  return [
    ok,
    hash === bundle.payloadHash
      ? `the payload hashes to ${hash}`
      : `the payload hashes to ${hash}, not the stated ${bundle.payloadHash}`,
  ];
}

function checkApprovalHashes(bundle: EvidenceBundle): [boolean, string] {
  const approvals = bundle.decisions.filter((decision) => decision.decision === 'approve');
  const stray = approvals.find((decision) => decision.payloadHash !== bundle.payloadHash);
  return [
    !stray,
    stray
      ? `an approval by ${stray.userId} names ${stray.payloadHash}`
      : `${approvals.length} approval(s), each naming the payload hash`,
  ];
}

/** Strictly increasing sequence numbers: the order the chain has, with no event twice. */
const inSeqOrder = (rows: readonly ChainRow[]) =>
  rows.every((row, index) => index === 0 || row.seq > rows[index - 1]!.seq);

/**
 * The proposal's events in sequence order (a file in any other order was not written by the server:
 * sorting it would hide the change, and the story must be read in the order the chain fixes), each
 * re-hashing, of this tenant and proposal and payload, starting with its creation.
 */
function checkEvents(bundle: EvidenceBundle): [boolean, string] {
  if (!inSeqOrder(bundle.events)) return [false, 'the events are not in sequence order (or one is there twice)'];
  const bad = bundle.events.find(
    (row) => !rowHashMatches(row) || row.tenantId !== bundle.tenant || row.proposalId !== bundle.proposal.id,
  );
  if (bad) return [false, `event #${bad.seq} does not re-hash or is not about this proposal`];
  const foreign = bundle.events.find((row) => row.payloadHash !== null && row.payloadHash !== bundle.payloadHash);
  if (foreign) return [false, `event #${foreign.seq} names another payload hash`];
  if (bundle.events[0]?.type !== 'proposal.created') return [false, 'the events do not start with proposal.created'];
  return [true, `${bundle.events.length} event(s), in sequence order, re-hash and name this proposal`];
}

/**
 * The checkpoint: a signed note by a trusted key (its origin the key's name), of this tenant's log
 * (`<host>/countersign/<tenant>`), holding the proposal's last event.
 */
function signedHead(
  bundle: EvidenceBundle,
  keys: readonly PublicJwk[],
): { result: [boolean, string]; head?: VerifiedCheckpoint } {
  let head: VerifiedCheckpoint;
  try {
    head = verifyCheckpoint(bundle.checkpoint, keys);
  } catch {
    return { result: [false, 'the checkpoint is not a signed note that verifies with the trusted keys'] };
  }
  if (originTenant(head.origin) !== bundle.tenant)
    return { result: [false, `the checkpoint is of log ${head.origin}, not of tenant ${bundle.tenant}`] };
  const last = bundle.events.at(-1);
  if (!last || head.size < last.seq)
    return { result: [false, `the checkpoint (#${head.size}) is older than the proposal's last event`] };
  return {
    result: [
      true,
      `signed by ${head.kid ?? '(no kid)'}: ${head.origin} had ${head.size} event(s), ` +
        `root ${Buffer.from(head.rootHash).toString('base64')}`,
    ],
    head,
  };
}

/**
 * Each event and passkey registration, re-hashed from its fields, is leaf seq-1 of the checkpoint's
 * tree (RFC 6962 inclusion proof). `includes` answers whether a row is exactly one that proved it.
 */
function includedRows(
  bundle: EvidenceBundle,
  head: VerifiedCheckpoint | undefined,
): { result: [boolean, string]; includes: (row: ChainRow) => boolean } {
  const none = { includes: () => false };
  if (!head) return { ...none, result: [false, 'no verified checkpoint to prove the events against'] };
  const rows = [
    ...bundle.events,
    ...bundle.passkeyRegistrations,
    ...(bundle.definition ? [bundle.definition.published] : []),
  ];
  for (const row of rows) {
    if (!rowHashMatches(row)) return { ...none, result: [false, `event #${row.seq} does not re-hash from its fields`] };
    try {
      verifyEventInclusion(row, row.inclusion, head);
    } catch (error) {
      return {
        ...none,
        result: [
          false,
          error instanceof ProofError ? error.message : `the inclusion proof of event #${row.seq} does not verify`,
        ],
      };
    }
  }
  const proven = new Map(rows.map((row) => [row.seq, row.hash]));
  return {
    result: [
      true,
      `${bundle.events.length} event(s) of this proposal` +
        (bundle.passkeyRegistrations.length > 0
          ? ` and ${bundle.passkeyRegistrations.length} passkey registration(s)`
          : '') +
        `, each included in checkpoint #${head.size}`,
    ],
    includes: (row) => proven.get(row.seq) === row.hash && rowHashMatches(row),
  };
}

/**
 * The receipt is the one the outcome event recorded (its sha256 over JCS, `receiptHash` in the
 * event's data), and, for a success, is for this operation, resource, amount and idempotency key.
 * An outcome event written before receipts were hashed leaves the receipt listed as not verified.
 */
function checkReceipt(bundle: EvidenceBundle, story: Story, action: ActionModule | undefined): [boolean, string] {
  const receipt = bundle.execution?.receipt ?? null;
  const outcome = story.execution && bundle.events.find((row) => row.seq === story.execution!.seq);
  if (!outcome)
    return [
      receipt === null,
      receipt === null ? 'no outcome is recorded, and there is no receipt' : 'a receipt with no outcome event',
    ];
  const recorded = 'receiptHash' in outcome.data;
  if (recorded && outcome.data.receiptHash !== receiptHash(receipt))
    return [false, `the receipt does not hash to what event #${outcome.seq} recorded`];
  if (bundle.execution?.status === 'succeeded') {
    const verdict =
      action && bundle.command
        ? action.validateReceipt(receipt, bundle.payload.args, bundle.proposal.facts, bundle.command.idempotencyKey)
        : { ok: false as const, reason: 'no command or unknown action' };
    if (!verdict.ok) return [false, verdict.reason];
  }
  if (!recorded)
    return [
      true,
      `event #${outcome.seq} records no receipt hash (written before they were recorded): the receipt is ` +
        `listed as not verified`,
    ];
  return [
    true,
    receipt === null
      ? `event #${outcome.seq} records that there is no receipt`
      : `the receipt hashes to ${outcome.data.receiptHash as string}, as event #${outcome.seq} recorded`,
  ];
}

/**
 * Every registration the bundle carries binds a key of one of its signed decisions, each once, in sequence order; and
 * every signed decision verifies.
 */
function passkeyVerdict(bundle: EvidenceBundle, decisions: readonly PasskeyCheck[]): [boolean, string] {
  const bad = decisions.find((decision) => !decision.ok);
  if (bad) return [false, `event #${bad.seq}: ${bad.label} ${bad.detail}`];
  const signed = bundle.events.filter(isSigned);
  if (!inSeqOrder(bundle.passkeyRegistrations))
    return [false, 'the passkey registrations are not in sequence order (or one is there twice)'];
  const unused = bundle.passkeyRegistrations.find(
    (registration) =>
      !signed.some(
        (row) =>
          row.data.passkeyCredential === registration.data.credential &&
          row.data.passkeyPublicKey === registration.data.publicKey,
      ),
  );
  if (unused) return [false, `passkey registration #${unused.seq} binds no key that signed a decision here`];
  return [true, decisions.map((decision) => `${decision.label} ${decision.detail}`).join('; ')];
}

/** Whether two ISO 8601 texts name the same instant (an unreadable one names none). */
function sameInstant(a: string, b: string): boolean {
  const [x, y] = [new Date(a).getTime(), new Date(b).getTime()];
  return Number.isFinite(x) && x === y;
}

/**
 * The bundle's decisions are the decision events, one for one and in their order (same person, decision, payload hash,
 * time and recorded name).
 */
function checkDecisions(bundle: EvidenceBundle, story: Story): [boolean, string] {
  for (const [index, decision] of bundle.decisions.entries()) {
    const event = story.decisions[index];
    if (!event)
      return [
        false,
        `the ${decision.decision} by ${actorLabel(decision.name, decision.userId)} has no matching event ` +
          `(person, decision, payload hash, time and name)`,
      ];
    const same =
      event.userId === decision.userId &&
      event.decision === decision.decision &&
      event.payloadHash === decision.payloadHash &&
      sameInstant(event.at, decision.createdAt) &&
      (event.name === null || event.name === decision.name);
    if (!same)
      return [
        false,
        `the ${decision.decision} by ${actorLabel(decision.name, decision.userId)} is not what event ` +
          `#${event.seq}, the decision in its place, records (person, decision, payload hash, time and name)`,
      ];
    const withdrawn = event.withdrawn
      ? decision.withdrawnAt !== null && sameInstant(event.withdrawn.at, decision.withdrawnAt)
      : decision.withdrawnAt === null;
    if (!withdrawn)
      return [
        false,
        `the bundle's withdrawal of ` +
          `the ${decision.decision} by ${actorLabel(decision.name, decision.userId)} is not what the events ` +
          `record (${event.withdrawn ? `event #${event.withdrawn.seq} withdrew it` : 'no event withdrew it'})`,
      ];
  }
  const left = story.decisions[bundle.decisions.length];
  if (left) return [false, `event #${left.seq} records a ${left.decision} the bundle's decisions leave out`];
  return [true, `${bundle.decisions.length} decision(s), each matching its event, in order`];
}

/** The events lead, each in its place, to the status the bundle states. */
function checkStatus(bundle: EvidenceBundle, story: Story): [boolean, string] {
  if (story.outOfPlace)
    return [
      false,
      `event #${story.outOfPlace.seq} (${story.outOfPlace.type}) cannot ` +
        `follow ${story.outOfPlace.status ?? 'nothing'}: an event before it was left out`,
    ];
  return [
    story.status?.status === bundle.proposal.status,
    story.status
      ? `the events lead to ${story.status.status} (event #${story.status.seq}); the bundle ` +
        `says ${bundle.proposal.status}`
      : 'no event sets a status',
  ];
}

function checkExecution(bundle: EvidenceBundle, story: Story): [boolean, string] {
  const stated = bundle.execution?.status ?? null;
  const recorded = story.execution?.status ?? null;
  // A started execution without an outcome event is still running: the bundle says `executing`.
  const expected = recorded ?? (story.status?.status === 'executing' ? 'executing' : null);
  return [
    stated === expected,
    `the events record ${expected ?? 'no execution'}; the bundle says ${stated ?? 'no execution'}`,
  ];
}

/**
 * Action, version, agent, parent and creation time from the creation event; risk recomputed; routing rule, outcome and
 * approvals from the events.
 */
function checkProposal(bundle: EvidenceBundle, story: Story, action: ActionModule | undefined): [boolean, string] {
  const { proposal, payload } = bundle;
  const created = story.created;
  if (!created) return [false, 'there is no proposal.created event'];
  let risk: string | undefined;
  try {
    risk = action?.risk(payload.args);
  } catch {
    risk = undefined;
  }
  const wrong = [
    proposal.action !== payload.action || created.data.action !== payload.action ? 'action' : undefined,
    proposal.contractVersion !== payload.contractVersion || created.contractVersion !== payload.contractVersion
      ? 'contractVersion'
      : undefined,
    proposal.agentName !== created.data.agent ? 'agentName' : undefined,
    (proposal.parentId ?? null) !== (created.data.parent ?? null) ? 'parentId' : undefined,
    !sameInstant(proposal.createdAt, created.occurredAt) ? 'createdAt' : undefined,
    risk !== proposal.risk ? 'risk' : undefined,
    proposal.routing.rule !== created.data.rule ||
    proposal.routing.policyVersion !== created.data.policyVersion ||
    proposal.routing.outcome !== created.reasonCode
      ? 'routing'
      : undefined,
    story.required !== undefined && proposal.routing.approvals !== story.required ? 'routing.approvals' : undefined,
    (proposal.routing as Record<string, unknown>).passkey !== created.data.passkey ? 'routing.passkey' : undefined,
  ].filter((field): field is string => field !== undefined);
  return wrong.length === 0
    ? [
        true,
        `action, agent, parent, creation time and routing match event #${created.seq}; ` +
          `risk ${risk} recomputed from the payload`,
      ]
    : [
        false,
        `${wrong.join(', ')} ${wrong.length === 1 ? 'differs' : 'differ'} from the events (or, for risk, ` +
          `from the payload)`,
      ];
}

/**
 * A declared action's definition: the one the creation event names (its version), published by an
 * `action.published` event of this tenant that is in the checkpoint's tree and binds the document
 * by its hash. Undefined for a shipped action; a verdict naming what fails otherwise.
 */
function definitionOf(
  bundle: EvidenceBundle,
  story: Story,
  inChain: (row: EvidenceBundle['events'][number]) => boolean,
): { result: [boolean, string]; action?: ActionModule } | undefined {
  if (findAction(bundle.payload.action)) return undefined;
  const fail = (why: string) => ({ result: [false, why] as [boolean, string] });
  if (!bundle.definition)
    return fail(`${bundle.payload.action} is a declared action, and the bundle has no definition`);
  const { document, published } = bundle.definition;
  const version = story.created?.data.definition;
  if (published.type !== 'action.published' || published.tenantId !== bundle.tenant)
    return fail('the definition is not bound by an action.published event of this tenant');
  if (!inChain(published)) return fail(`action.published event #${published.seq} is not proven in the checkpoint`);
  if (published.data.action !== bundle.payload.action || published.data.version !== version)
    return fail(`event #${published.seq} published another action or version than the proposal was gated by`);
  let hash: string;
  try {
    hash = payloadHash(document);
  } catch {
    return fail('the definition cannot be canonicalized');
  }
  if (hash !== published.data.documentHash)
    return fail(`the definition does not hash to what event #${published.seq} recorded`);
  const checked = checkDefinition(document);
  if (!checked.ok) return fail('the definition no longer parses');
  return {
    result: [true, `${bundle.payload.action} v${String(version)}, as event #${published.seq} published it (${hash})`],
    action: definedAction(checked.definition, Number(version)),
  };
}

/** The verified story in words: only what the checks above vouch for. */
function storyLines(
  bundle: EvidenceBundle,
  story: Story,
  head: VerifiedCheckpoint,
  passkeys: readonly PasskeyCheck[],
): string[] {
  const withPasskey = new Map(passkeys.map((check) => [check.seq, ` ${check.detail}`]));
  const created = story.created;
  const lines = [
    `proposal ${bundle.proposal.id} (${bundle.tenant}): ${bundle.payload.action} v${bundle.payload.contractVersion}, ` +
      `payload ${bundle.payloadHash}, risk ${bundle.proposal.risk}`,
    created
      ? `proposed by ${created.actorType} ${actorLabel(created.actorName, created.actorId)} ` +
        `at ${new Date(created.occurredAt).toISOString()}`
      : 'proposed: no event',
    `routing: rule "${bundle.proposal.routing.rule}" of policy v${bundle.proposal.routing.policyVersion}, ` +
      `${bundle.proposal.routing.outcome}` +
      (story.required !== undefined ? `, ${story.required} approval(s) required` : ''),
    ...story.decisions.map((decision) =>
      decisionWords(decision, actorLabel(decision.name, decision.userId), withPasskey.get(decision.seq)),
    ),
    ...(story.decisions.some((decision) => decision.decision === 'approve')
      ? [
          `approvals counted: ${countedApprovals(story)}` +
            `${story.required !== undefined ? ` of ${story.required} required` : ''} (withdrawn ones never count)`,
        ]
      : []),
    ...(story.grant
      ? [
          `approved under grant ${story.grant.grantId} from ${actorLabel(story.grant.name, story.grant.userId)} ` +
            `at ${story.grant.at} (event #${story.grant.seq}); no person looked at it`,
        ]
      : []),
    `status: ${bundle.proposal.status} (event #${story.status?.seq})`,
    story.execution
      ? `execution: ${story.execution.status} at ${story.execution.at} (event ` +
        `#${story.execution.seq})${receiptWords(bundle, story)}`
      : `execution: ${bundle.execution?.status ?? 'none'}`,
    `log: events ${bundle.events.map((row) => `#${row.seq}`).join(', ')} of ${bundle.tenant}, each included ` +
      `in checkpoint #${head.size} (tree size ${head.size}) of ${head.origin}, signed ` +
      `with ${head.kid ?? '(no kid)'}`,
  ];
  return lines;
}

/** The execution line's words on the receipt: only what its check established. */
function receiptWords(bundle: EvidenceBundle, story: Story): string {
  const outcome = bundle.events.find((row) => row.seq === story.execution?.seq);
  if (!outcome || !bundle.execution?.receipt) return '';
  return 'receiptHash' in outcome.data
    ? ', its receipt the one this event recorded'
    : ', its receipt for this operation (its hash was not recorded: see Not verified)';
}

/** The first event the executor wrote once it accepted the command: the time its claims are checked against. */
const CONSUMED = new Set(['execution.started', 'execution.succeeded', 'execution.failed', 'execution.outcome_unknown']);

/**
 * The command: its signature with a trusted key, its own typ and kid, claims that are this payload,
 * proposal, scope and idempotency key, and time claims that hold against each other and against the
 * recorded execution (executed within nbf..exp, the executor's skew allowed) — never against the
 * verifier's clock.
 */
async function checkCommand(bundle: EvidenceBundle, keys: readonly PublicJwk[]): Promise<[boolean, string]> {
  const command = bundle.command;
  // The command is the one its (chained) `command.minted` event names, or there is neither.
  const minted = bundle.events.find((row) => row.type === 'command.minted');
  if (!command || !minted)
    return [
      !command && !minted,
      minted
        ? `event #${minted.seq} records a command the bundle leaves out`
        : command
          ? 'no event records this command being minted'
          : 'no command was minted',
    ];
  if (minted.data.commandId !== command.id || minted.data.scope !== command.scope || minted.data.kid !== command.kid)
    return [false, `the command is not the one event #${minted.seq} records (id, scope, kid)`];
  let claims: Record<string, unknown>;
  try {
    const header = decodeProtectedHeader(command.jws);
    const key = header.kid ? (await verificationKeys(keys)).get(header.kid) : undefined;
    if (!key) return [false, `the command was signed with key "${header.kid ?? '(none)'}", not a trusted one`];
    if (header.typ !== COMMAND_TYP || header.kid !== command.kid)
      return [false, 'the command is not of its own type, or names another kid than the bundle says'];
    const { payload } = await compactVerify(command.jws, key, { algorithms: ['EdDSA'] });
    claims = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload)) as Record<string, unknown>;
  } catch {
    return [false, 'the command signature does not verify'];
  }
  let recomputed: string;
  try {
    recomputed = payloadHash({
      action: claims.action,
      contractVersion: claims.contractVersion,
      tenantId: claims.tenant,
      args: claims.args,
      evidenceRefs: claims.evidenceRefs,
    });
  } catch {
    return [false, 'the command claims are not a payload'];
  }
  const matches =
    recomputed === bundle.payloadHash &&
    claims.payloadHash === bundle.payloadHash &&
    claims.sub === bundle.proposal.id &&
    claims.jti === command.id &&
    claims.idempotencyKey === command.idempotencyKey &&
    claims.aud === audienceFor(command.scope);
  if (!matches) return [false, 'the command claims differ from the payload, proposal, scope or idempotency key'];
  const times = timeClaims(claims);
  if (!times) return [false, 'the command claims no valid lifetime (iat, nbf, exp, at most the allowed lifetime)'];
  const consumed = bundle.events.find((row) => CONSUMED.has(row.type));
  const window = `valid ${new Date(times.nbf * 1000).toISOString()} to ${new Date(times.exp * 1000).toISOString()}`;
  if (!consumed)
    return [
      true,
      `signed by ${command.kid}; its claims are this payload (${recomputed}); ${window}; no execution is recorded`,
    ];
  const at = Math.floor(new Date(consumed.occurredAt).getTime() / 1000);
  if (at > times.exp + CLOCK_SKEW_SECONDS || at + CLOCK_SKEW_SECONDS < times.nbf)
    return [
      false,
      `the command was ${window}, but event #${consumed.seq} records its execution at ${consumed.occurredAt}`,
    ];
  return [
    true,
    `signed by ${command.kid}; its claims are this payload (${recomputed}); ${window}, executed within it ` +
      `(event #${consumed.seq})`,
  ];
}

/** iat ≤ nbf < exp as whole seconds, exp at most the command lifetime after both. */
function timeClaims(claims: Record<string, unknown>): { nbf: number; exp: number } | undefined {
  const { iat, nbf, exp } = claims;
  if (!Number.isInteger(iat) || !Number.isInteger(nbf) || !Number.isInteger(exp)) return undefined;
  const [issued, from, until] = [iat, nbf, exp] as [number, number, number];
  if (
    issued > from ||
    from >= until ||
    until - from > COMMAND_LIFETIME_SECONDS ||
    until - issued > COMMAND_LIFETIME_SECONDS
  )
    return undefined;
  return { nbf: from, exp: until };
}
