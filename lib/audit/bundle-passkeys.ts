import { z } from 'zod';
import { checkSignedStatement } from '@/lib/passkeys/signature';
import { statementMismatches } from '@/lib/passkeys/statement';
import { actorLabel, DECISION_TYPES } from './bundle-story';
import type { ChainRow } from './verify';
import { rowHashMatches } from './verify';

/** One signed decision of a bundle, checked offline; `unverified` names what the verdict does not cover. */
export type PasskeyCheck = { seq: number; ok: boolean; label: string; detail: string; unverified: string[] };

/**
 * `bundle:verify --passkeys people.json`: the public keys people gave the auditor themselves, by
 * person id (docs/evidence.md). `email` and `name` are for the reader: no event records an email,
 * so nothing checks them.
 */
export const peopleFileSchema = z.record(
  z.string().regex(/^usr_/, 'each key is a person id (usr_…)'),
  z.strictObject({
    email: z.string().optional(),
    name: z.string().optional(),
    publicKeys: z.array(z.string().min(1)).min(1),
  }),
);

export type PinnedPeople = z.infer<typeof peopleFileSchema>;

const EVIDENCE_FIELDS = [
  'passkeyStatement',
  'passkeyAuthenticatorData',
  'passkeyClientData',
  'passkeySignature',
  'passkeyPublicKey',
  'passkeyCredential',
  'passkeyRpId',
] as const;

/** Whether a decision event carries a passkey signature (lib/passkeys/decision.ts). */
export const isSigned = (row: ChainRow) => DECISION_TYPES.has(row.type) && row.data.passkeyStatement !== undefined;

export const PIN_HINT = "pin people's keys with `--passkeys people.json` to check it against keys they gave you";

/**
 * Each passkey-signed decision among `events` (docs/passkeys.md), and each approval left unsigned
 * where the proposal's routing rule asked for a passkey: the WebAuthn signature verifies offline
 * with the public key its (chained) event holds; the statement is this event's proposal, tenant,
 * decision, payload hash, person and revision, and the decision was recorded within the statement's
 * window. What binds the key to the person is said in words: a key pinned in `people` (the person's
 * own word), else the `passkey.registered` event of the tenant that comes before it — the server's
 * word, and only when `inChain` proves the registration's place in the log (its inclusion proof,
 * whether it came before the proposal or not); a registration this bundle cannot place binds
 * nothing, and is listed as not verified.
 */
export async function checkPasskeyDecisions(input: {
  tenant: string;
  events: readonly ChainRow[];
  registrations: readonly ChainRow[];
  revisionOf: string | null;
  /** Whether a row is in the log the bundle proves (its inclusion proof in the bundle's checkpoint verified). */
  inChain: (row: ChainRow) => boolean;
  people?: PinnedPeople;
}): Promise<PasskeyCheck[]> {
  const checks: PasskeyCheck[] = [];
  // The creation event records a rule's "passkey": true: then every approval must carry a signature.
  if (input.events.find((row) => row.type === 'proposal.created')?.data.passkey === true) {
    for (const row of input.events.filter(
      (event) => DECISION_TYPES.has(event.type) && event.reasonCode === 'approve' && !isSigned(event),
    )) {
      checks.push({
        seq: row.seq,
        ok: false,
        label: `approved by ${actorLabel(row.actorName, row.actorId)}`,
        detail: 'without a passkey, which the routing rule required',
        unverified: [],
      });
    }
  }
  for (const row of input.events.filter(isSigned)) {
    const label =
      `${row.reasonCode === 'reject' ? 'rejected' : 'approved'} by ` + actorLabel(row.actorName, row.actorId);
    // The name the chained decision event recorded, never the registration's.
    const name = typeof row.data.passkeyName === 'string' ? row.data.passkeyName : '(unnamed)';
    const fail = (detail: string) =>
      checks.push({
        seq: row.seq,
        ok: false,
        label,
        detail: `with passkey ‘${name}’ (not verified: ${detail})`,
        unverified: [],
      });
    const evidence = Object.fromEntries(EVIDENCE_FIELDS.map((field) => [field, row.data[field]]));
    if (EVIDENCE_FIELDS.some((field) => typeof evidence[field] !== 'string')) {
      fail(`event #${row.seq} lacks part of its passkey evidence`);
      continue;
    }
    const text = (field: (typeof EVIDENCE_FIELDS)[number]) => evidence[field] as string;
    const verdict = await checkSignedStatement({
      statement: text('passkeyStatement'),
      authenticatorData: text('passkeyAuthenticatorData'),
      clientData: text('passkeyClientData'),
      signature: text('passkeySignature'),
      publicKey: text('passkeyPublicKey'),
      rpId: text('passkeyRpId'),
    });
    if (!verdict.ok) {
      fail(verdict.reason);
      continue;
    }
    const wrong = statementMismatches(verdict.statement, {
      proposalId: row.proposalId ?? '',
      tenantId: row.tenantId,
      decision: row.reasonCode ?? '',
      payloadHash: row.payloadHash,
      revisionOf: input.revisionOf,
      userId: row.actorId,
    });
    if (wrong.length > 0) {
      fail(`the signed statement's ${wrong.join(', ')} differ from event #${row.seq}`);
      continue;
    }
    const at = new Date(row.occurredAt).getTime();
    if (at < new Date(verdict.statement.issuedAt).getTime() || at > new Date(verdict.statement.expiresAt).getTime()) {
      fail(`event #${row.seq} was recorded outside the statement's window`);
      continue;
    }
    const pinned = input.people?.[row.actorId];
    if (pinned) {
      if (!pinned.publicKeys.includes(text('passkeyPublicKey'))) {
        fail(`the key is not one people.json gives for ${row.actorId}${pinned.email ? ` (${pinned.email})` : ''}`);
        continue;
      }
      checks.push({
        seq: row.seq,
        ok: true,
        label,
        detail:
          `with passkey ‘${name}’ (signature verified with the key people.json gives ` +
          `for ${row.actorId}${pinned.email ? ` (${pinned.email})` : ''})`,
        unverified: [],
      });
      continue;
    }
    const registration = input.registrations.find(
      (event) =>
        event.type === 'passkey.registered' &&
        event.tenantId === input.tenant &&
        event.data.credential === text('passkeyCredential') &&
        event.data.publicKey === text('passkeyPublicKey') &&
        event.data.user === row.actorId &&
        event.actorId === row.actorId &&
        event.seq < row.seq &&
        rowHashMatches(event),
    );
    if (!registration) {
      fail(`no earlier passkey.registered event of ${input.tenant} that re-hashes binds this key to ${row.actorId}`);
      continue;
    }
    if (input.inChain(registration)) {
      checks.push({
        seq: row.seq,
        ok: true,
        label,
        detail:
          `with passkey ‘${name}’ (signature verified; key registered by the server at ` +
          `#${registration.seq}; ${PIN_HINT})`,
        unverified: [],
      });
      continue;
    }
    checks.push({
      seq: row.seq,
      ok: true,
      label,
      detail:
        `with passkey ‘${name}’ (signature verified with the key event #${row.seq} records; its registration ` +
        `#${registration.seq} is not proven in the chain by this bundle; ${PIN_HINT})`,
      unverified: [
        `passkeyRegistrations[${input.registrations.indexOf(registration)}] (#${registration.seq}: it ` +
          `re-hashes, but nothing in this bundle proves its place in the chain, so the binding ` +
          `of ${row.actorId}'s key rests on event #${row.seq} alone)`,
      ],
    });
  }
  return checks;
}
