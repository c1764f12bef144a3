'use client';

import Link from 'next/link';
import { OperatorApiError } from '@/lib/client/operator-api';
import { signDecision } from '@/lib/client/passkeys-api';
import type { DecisionRequest } from '@/lib/decisions/requests';
import { PayloadText } from './payload-text';

/**
 * Whether this person's decision on this proposal must be signed (its rule, or the tenant) and whether they have a
 * passkey to sign with.
 */
export type PasskeyState = { required: boolean; registered: boolean };

/** Whether a decision will be signed: always where it is required, else as the person chose. */
export const willSign = (state: PasskeyState, chosen: boolean) => state.registered && (state.required || chosen);

/**
 * The decision with its passkey signature when `sign` (the browser asks for the passkey here); a cancelled prompt
 * throws like a refusal.
 */
export async function signedRequest(
  proposalId: string,
  request: DecisionRequest,
  sign: boolean,
): Promise<DecisionRequest> {
  if (!sign) return request;
  const signed = await signDecision(proposalId, request.decision);
  if (!signed.ok) throw new OperatorApiError(signed.problem);
  return { ...request, passkey: signed.value };
}

const SECURITY = '/settings/security';

/** Refusals a passkey answers: the offer to add one beside the message. */
const NEEDS_A_PASSKEY = new Set(['passkey_required', 'no_passkey']);

export function PasskeyHelp({ code }: { code: string }) {
  if (!NEEDS_A_PASSKEY.has(code)) return null;
  return (
    <Link
      href={SECURITY}
      data-testid="add-passkey-offer"
      className="mt-1 block font-medium underline underline-offset-2"
    >
      Add a passkey in Settings → Security
    </Link>
  );
}

/**
 * What the passkey will sign, before the browser asks: the proposal in words (with its amount),
 * the decision and the payload hash, bound to this person for two minutes. Where the approval
 * must be signed and the person has no passkey, the offer to add one instead. Where signing is
 * optional, a box to sign anyway.
 */
export function PasskeySigning(props: {
  state: PasskeyState;
  decision: 'approve' | 'reject';
  summary: string;
  payloadHash: string;
  chosen: boolean;
  onChoose: (sign: boolean) => void;
}) {
  const { state, decision, summary, payloadHash, chosen, onChoose } = props;
  if (!state.registered) {
    if (!state.required || decision === 'reject') return null;
    return (
      <p data-testid="passkey-needed" className="text-sm">
        This approval must be signed with your passkey, and you have none yet. <PasskeyHelp code="passkey_required" />
      </p>
    );
  }
  const signing = willSign(state, chosen);
  return (
    <div data-testid="passkey-signing" className="space-y-1 text-sm">
      {state.required && decision === 'approve' ? (
        <p className="font-medium">This approval must be signed with your passkey.</p>
      ) : (
        <label className="flex items-center gap-2">
          <input
            type="checkbox"
            data-testid="passkey-sign-choice"
            checked={chosen}
            onChange={(event) => onChoose(event.target.checked)}
          />
          Sign this {decision === 'approve' ? 'approval' : 'rejection'} with my passkey
        </label>
      )}
      {signing ? (
        <dl
          data-testid="passkey-statement"
          className={
            'grid grid-cols-[auto_1fr] gap-x-3 rounded-md border border-zinc-200 bg-white p-2 text-xs ' +
            'dark:border-zinc-700 dark:bg-zinc-900'
          }
        >
          <dt className="text-zinc-500">You sign</dt>
          <dd>
            {decision === 'approve' ? 'Approve' : 'Reject'}: <PayloadText value={summary} mono={false} />
          </dd>
          <dt className="text-zinc-500">Payload</dt>
          <dd>
            <code data-testid="passkey-statement-hash" className="break-all font-mono">
              {payloadHash}
            </code>
          </dd>
          <dt className="text-zinc-500">Valid</dt>
          <dd>2 minutes, once, as you; your browser asks for the passkey next.</dd>
        </dl>
      ) : null}
    </div>
  );
}
