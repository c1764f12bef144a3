import type { ChainRow } from './verify';
import { rowHashMatches } from './verify';
import { checkSignedStatement } from '@/lib/passkeys/signature';
import { statementMismatches } from '@/lib/passkeys/statement';
import { actorLabel, DECISION_TYPES } from './bundle-story';

/** One signed decision of a bundle, checked offline. */
export type PasskeyCheck = { seq: number; ok: boolean; label: string; detail: string };

const EVIDENCE_FIELDS = ['passkeyStatement', 'passkeyAuthenticatorData', 'passkeyClientData', 'passkeySignature', 'passkeyPublicKey', 'passkeyCredential', 'passkeyRpId'] as const;

/** Whether a decision event carries a passkey signature (lib/passkeys/decision.ts). */
export const isSigned = (row: ChainRow) => DECISION_TYPES.has(row.type) && row.data.passkeyStatement !== undefined;

/**
 * Each passkey-signed decision among `events` (docs/passkeys.md), and each approval left unsigned
 * where the proposal's routing rule asked for a passkey: the WebAuthn signature verifies
 * offline with the public key its event holds; the statement is this event's proposal, tenant,
 * decision, payload hash, person and revision, and the decision was recorded within the
 * statement's window; and a `passkey.registered` event of the tenant, which re-hashes and comes
 * before it, binds that credential and key to the same person, under the name shown.
 */
export async function checkPasskeyDecisions(input: { tenant: string; events: readonly ChainRow[]; registrations: readonly ChainRow[]; revisionOf: string | null }): Promise<PasskeyCheck[]> {
  const checks: PasskeyCheck[] = [];
  // The creation event records a rule's "passkey": true: then every approval must carry a signature.
  if (input.events.find((row) => row.type === 'proposal.created')?.data.passkey === true) {
    for (const row of input.events.filter((event) => DECISION_TYPES.has(event.type) && event.reasonCode === 'approve' && !isSigned(event))) {
      checks.push({ seq: row.seq, ok: false, label: `approved by ${actorLabel(row.actorName, row.actorId)}`, detail: 'without a passkey, which the routing rule required' });
    }
  }
  for (const row of input.events.filter(isSigned)) {
    const label = `${row.reasonCode === 'reject' ? 'rejected' : 'approved'} by ${actorLabel(row.actorName, row.actorId)}`;
    const fail = (detail: string) => checks.push({ seq: row.seq, ok: false, label, detail });
    const evidence = Object.fromEntries(EVIDENCE_FIELDS.map((field) => [field, row.data[field]]));
    if (EVIDENCE_FIELDS.some((field) => typeof evidence[field] !== 'string')) {
      fail(`event #${row.seq} lacks part of its passkey evidence`);
      continue;
    }
    const text = (field: (typeof EVIDENCE_FIELDS)[number]) => evidence[field] as string;
    const registration = input.registrations.find((event) => event.type === 'passkey.registered' && event.data.credential === text('passkeyCredential') && event.data.publicKey === text('passkeyPublicKey'));
    const name = typeof registration?.data.name === 'string' ? registration.data.name : '(unregistered)';
    const verdict = await checkSignedStatement({
      statement: text('passkeyStatement'),
      authenticatorData: text('passkeyAuthenticatorData'),
      clientData: text('passkeyClientData'),
      signature: text('passkeySignature'),
      publicKey: text('passkeyPublicKey'),
      rpId: text('passkeyRpId'),
    });
    if (!verdict.ok) {
      fail(`with passkey ‘${name}’ (not verified: ${verdict.reason})`);
      continue;
    }
    const wrong = statementMismatches(verdict.statement, { proposalId: row.proposalId ?? '', tenantId: row.tenantId, decision: row.reasonCode ?? '', payloadHash: row.payloadHash, revisionOf: input.revisionOf, userId: row.actorId });
    if (wrong.length > 0) {
      fail(`with passkey ‘${name}’ (not verified: the signed statement's ${wrong.join(', ')} differ from event #${row.seq})`);
      continue;
    }
    const at = new Date(row.occurredAt).getTime();
    if (at < new Date(verdict.statement.issuedAt).getTime() || at > new Date(verdict.statement.expiresAt).getTime()) {
      fail(`with passkey ‘${name}’ (not verified: event #${row.seq} was recorded outside the statement's window)`);
      continue;
    }
    if (!registration || !rowHashMatches(registration) || registration.tenantId !== input.tenant || registration.data.user !== row.actorId || registration.actorId !== row.actorId || registration.seq >= row.seq) {
      fail(`with passkey ‘${name}’ (not verified: no earlier passkey.registered event of ${input.tenant} that re-hashes binds this key to ${row.actorId})`);
      continue;
    }
    checks.push({ seq: row.seq, ok: true, label, detail: `with passkey ‘${name}’ (verified)` });
  }
  return checks;
}
