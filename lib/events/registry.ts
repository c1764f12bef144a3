/**
 * Every audit event type (DESIGN.md §8) and every outbox topic (DESIGN.md §9), with what it
 * records. These strings are stored, hashed into the audit chain and matched by consumers: never
 * rename one; add a new name here before writing it anywhere.
 */
/** How an execution ended: an audit event and a notification alike. */
const EXECUTION_OUTCOMES = {
  'execution.succeeded': 'the write was committed and its receipt validated',
  'execution.failed': 'nothing was written',
  'execution.outcome_unknown': 'the write may or may not have happened; reconciliation will ask',
} as const;

export const AUDIT_EVENTS = {
  'tenant.created': 'a tenant was created',
  'membership.granted': 'a user was given a role in the tenant',
  'membership.removed': "a user's membership was removed and their sessions ended",
  'agent_key.created': 'an agent key was issued',
  'agent_key.revoked': 'an agent key was revoked',
  'auth.sign_in_locked': 'too many failed sign-ins locked an account out for a while',
  'proposal.created': 'a proposal passed the gates (from an agent, or an operator revision)',
  'proposal.approval_added': 'an approval was recorded; more are needed',
  'proposal.approved': 'the last approval needed was recorded',
  'proposal.rejected': 'an operator rejected the proposal',
  'proposal.extended': 'an approver extended the expiry once',
  'proposal.revised': 'an operator replaced the proposal by a revision',
  'proposal.expired': 'nobody decided before the expiry',
  'proposal.stale': 'live state changed under the proposal before it was decided',
  'command.minted': 'a signed command was minted for the approved proposal',
  'execution.started': 'the executor accepted the command and began the write',
  ...EXECUTION_OUTCOMES,
  'execution.checked': 'reconciliation asked the system of record about an unknown outcome',
} as const satisfies Record<string, string>;

export type AuditEventType = keyof typeof AUDIT_EVENTS;

/** Notifications written to the outbox beside a state change; `command.minted` feeds dispatch. */
export const OUTBOX_TOPICS = {
  'proposal.created': 'a proposal awaits a decision, or was auto-approved',
  'proposal.decided': 'a decision was recorded (approval, quorum, rejection)',
  'proposal.revised': 'a proposal was replaced by a revision',
  'proposal.expired': 'a proposal expired undecided',
  'proposal.stale': 'a proposal went stale undecided',
  'command.minted': 'a signed command is ready to be dispatched to its executor',
  ...EXECUTION_OUTCOMES,
} as const satisfies Record<string, string>;

export type OutboxTopic = keyof typeof OUTBOX_TOPICS;
