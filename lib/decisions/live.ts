import type { Database } from '@/db';
import type { Facts, GateResult, Proposal } from '@/db/schema';
import { findAction } from '@/lib/actions/registry';
import type { ActionModule, Resolution } from '@/lib/actions/types';
import { tenantAction } from '@/lib/definitions/catalog';
import { openClaimsBesides } from '@/lib/gates/claims';
import { keyAuthority } from '@/lib/gates/key-authority';
import { meaningGate } from '@/lib/gates/meaning';
import { rulesGate } from '@/lib/gates/rules';
import type { GateSubject } from '@/lib/gates/types';
import type { SystemsClient } from '@/lib/systems/client';

/**
 * What moved between the facts read at intake and the facts read now, in words for a person;
 * undefined when nothing did. An action may say it in its own terms; otherwise each fact is named.
 */
export function describeFactChanges(action: ActionModule, before: Facts, after: Facts): string | undefined {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const moved = keys.filter((key) => String(before[key] ?? '') !== String(after[key] ?? ''));
  if (moved.length === 0) return undefined;
  const own = action.describeChange?.(before, after);
  if (own) return `${own} since it was proposed`;
  const changes = moved.map(
    (key) =>
      `${key} changed from ${before[key] === undefined ? '(none)' : String(before[key])} ` +
      `to ${after[key] === undefined ? '(none)' : String(after[key])}`,
  );
  return `${changes.join('; ')} since it was proposed`;
}

/** Why the resolved resource no longer matches the proposal, if it does not. */
export function describeResourceChange(
  resourceKey: string | null,
  resolution: Resolution | undefined,
): string | undefined {
  if (!resolution) return 'the resource can no longer be found in the system of record';
  if (resourceKey !== null && resolution.resourceKey !== resourceKey) {
    return `the resource is now ${resolution.resourceKey}, not ${resourceKey} as when it was proposed`;
  }
  return undefined;
}

/** What the system of record said just before the decision (read without any database lock held). */
export type LiveRead = { resolution: Resolution | undefined };

const subjectOf = (proposal: Proposal, action: ActionModule): GateSubject => ({
  tenantId: proposal.tenantId,
  action,
  args: proposal.payload.args,
  contractVersion: proposal.contractVersion,
});

/**
 * Meaning, read again from the system of record by the intake's own gate (evidence is not read
 * again: it is a snapshot kept with the proposal); an unavailable system of record throws its SystemsUnavailableError
 * (503) and changes nothing.
 */
export async function readLive(db: Database, systems: SystemsClient, proposal: Proposal): Promise<LiveRead> {
  const action = await tenantAction(db, proposal.tenantId, proposal.action);
  if (!action) return { resolution: undefined };
  const meant = await meaningGate(subjectOf(proposal, action), { systems, evidenceRefs: [] });
  return { resolution: meant.ok ? meant.value.resolution : undefined };
}

/** Why a proposal no longer holds, and which of its checks failed (shown ✗ on its page). */
export type StaleVerdict = { code: string; reason: string; gate: 'meaning' | 'authority' };

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);
const sentence = (text: string) => text.replace(/\.$/, '');

/**
 * Meaning, Authority and the rules against live state, run by the intake's gates, in words when
 * they no longer hold. Facts that moved while the proposal still holds (a sibling refund the
 * balance still covers) are no verdict: `describeDrift` words them. Call it inside a transaction
 * with the proposal row locked.
 */
export async function staleReason(tx: Database, proposal: Proposal, live: LiveRead): Promise<StaleVerdict | undefined> {
  const action = await tenantAction(tx, proposal.tenantId, proposal.action);
  if (!action)
    return { code: 'action_unknown', gate: 'meaning', reason: `the action ${proposal.action} is no longer known` };
  const moved = describeResourceChange(proposal.resourceKey, live.resolution);
  if (moved || !live.resolution)
    return { code: 'resource_changed', gate: 'meaning', reason: moved ?? 'the resource can no longer be found' };
  const resolution = live.resolution;
  const subject = subjectOf(proposal, action);
  // What moved, old → new, leads any reason it caused ("order balance changed from … to … since it was proposed; …").
  const changed = describeFactChanges(action, proposal.facts, resolution.facts);
  const because = (reason: string) => (changed ? `${changed}; ${reason}` : `${reason} since it was proposed`);

  const { lapse, agent } = await keyAuthority(tx, proposal, subject, resolution);
  if (lapse?.code === 'agent_key_revoked')
    return {
      code: lapse.code,
      gate: 'authority',
      reason: `the agent key of ${proposal.agentName} was revoked since it was proposed`,
    };
  if (lapse)
    return {
      code: lapse.code,
      gate: 'authority',
      reason: because(`the grants of ${lapse.agentName} no longer cover ${resolution.resourceKey}`),
    };

  const ruled = await rulesGate({ ...subject, agent }, { resolution, open: await openClaimsBesides(tx, proposal) });
  if (!ruled.ok) {
    const rule = sentence(ruled.refusal.message);
    return {
      code: ruled.refusal.code,
      gate: 'meaning',
      reason: changed ? `${changed}; ${lowerFirst(rule)}` : `${rule} (checked again against live state)`,
    };
  }
  return undefined;
}

/** The facts that moved under a proposal that still holds, in words; undefined when none did. */
export function describeDrift(proposal: Proposal, live: LiveRead): string | undefined {
  const action = findAction(proposal.action);
  if (!action || !live.resolution) return undefined;
  return describeFactChanges(action, proposal.facts, live.resolution.facts);
}

/** The proposal's checks with the one that failed shown failed: its code and, in words, what moved. */
export function staleGates(gates: GateResult[], verdict: StaleVerdict): GateResult[] {
  const failed: GateResult = { gate: verdict.gate, ok: false, code: verdict.code, detail: verdict.reason };
  return gates.some((gate) => gate.gate === verdict.gate)
    ? gates.map((gate) => (gate.gate === verdict.gate ? failed : gate))
    : [...gates, failed];
}
