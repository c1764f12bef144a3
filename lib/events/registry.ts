/**
 * Every audit event type (docs/design.md §8) and every outbox topic (docs/design.md §9), with what it
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
  'tenant.settings_changed':
    "an admin changed the tenant's settings (reminder, escalation, values; the rubber-stamp alarm; whether every " +
    'approval needs a passkey)',
  'channel.created': 'an admin added a notification channel',
  'channel.updated': 'an admin changed, disabled or re-enabled a notification channel',
  'delivery.retried': 'an admin sent a dead notification delivery again',
  'membership.granted': 'a user was given a role in the tenant, or their role changed',
  'membership.removed':
    "a user's membership was removed: their access to this tenant ends (their sessions, which may serve other " +
    'tenants, stay)',
  'membership.invited': 'an admin invited someone by email to join the tenant with a role (a one-time link)',
  'membership.invitation_cancelled': 'an admin cancelled a pending invitation; its link no longer works',
  'membership.invitation_code_sent':
    "a code to prove the invited address was emailed to it from the invitation's page (never the code itself)",
  'executions.paused': "an admin stopped the tenant's executions: approved commands wait and no expiry is counted",
  'executions.resumed':
    "an admin resumed the tenant's executions: pending deadlines moved on by the time paused, waiting commands go out",
  'agent_key.created': 'an agent key was issued',
  'agent_key.revoked': 'an agent key was revoked',
  'agent_key.rotated': 'an agent key was replaced by a new one; the old one works until the overlap ends',
  'auth.signed_in': 'a member signed in (password or single sign-on) and a session started',
  'auth.sign_in_failed': "a sign-in naming a member's account was refused (wrong password, unverified email)",
  'auth.sign_in_locked': 'too many failed sign-ins locked an account out for a while',
  'auth.email_code_sent': 'a code to prove their address was emailed to a member (never the code itself)',
  'auth.email_verified':
    'a member proved their address (the emailed code, or single sign-on that vouched for it); their account may ' +
    'join other tenants',
  'auth.credentials_cleared':
    "proving the address of an account an invitation link made took it over for the address's owner: its " +
    'password and passkeys were removed and its sessions ended',
  'auth.password_changed': "a member's password was set anew; their sessions end with it",
  'passkey.registered': 'a member added a passkey: its credential id, public key and name, bound to them',
  'passkey.removed':
    'a passkey was removed, by its owner or by an admin of a tenant the owner belongs to (admin_reset: lost, or ' +
    'the last where passkeys are required)',
  'session.ended':
    "a member's session ended: signed out, signed out everywhere, idle, expired, password changed, address " +
    'proven (a link-made account taken over) or removed',
  'policy.published': "a new version of an action's routing policy took effect in the tenant",
  'action.published':
    "a new version of one of the tenant's action definitions was published (its name, version, document hash and " +
    'the change note)',
  'contract.status_changed':
    "an admin moved a contract version in the tenant's rollout (shadow, current, supported with or without a " +
    'sunset, retired)',
  'proposal.created': 'a proposal passed the gates (from an agent, or an operator revision)',
  'proposal.approval_added': 'an approval was recorded; more are needed',
  'proposal.approved': 'the last approval needed was recorded',
  'proposal.approval_withdrawn':
    "an approval stopped counting: its approver's role dropped below the rule's, or they were removed from the " +
    'tenant, while the proposal waited',
  'proposal.rejected': 'an operator rejected the proposal',
  'proposal.extended': 'an approver extended the expiry once',
  'proposal.revised': 'an operator replaced the proposal by a revision',
  'proposal.expired': 'nobody decided before the expiry',
  'proposal.stale': 'live state changed under the proposal before it was decided',
  'proposal.repropose_requested':
    'an operator asked the agent to propose a stale or changed proposal again (with a new requestId)',
  'command.minted': 'a signed command was minted for the approved proposal',
  'execution.started': 'the executor accepted the command and began the write',
  ...EXECUTION_OUTCOMES,
  'execution.checked': 'reconciliation asked the system of record about an unknown outcome',
  'oversight.rubber_stamp':
    "an approver's decisions of the last 7 days met the tenant's rubber-stamp thresholds (once per person and week)",
  'grant.created':
    'an approver made a standing grant from a proposal they approved: its terms (action, agent key, rule, ' +
    'resource, expiry, caps) and reason',
  'grant.revoked': 'the granter or an admin revoked a standing grant',
  'grant.ended':
    "a standing grant ended because its granter's role changed, the granter left the tenant, or the action's " +
    'policy changed',
} as const satisfies Record<string, string>;

export type AuditEventType = keyof typeof AUDIT_EVENTS;

/**
 * Each audit event's name in words, as a timeline or a table row reads it ("Approval added", not
 * `proposal.approval_added`).
 */
export const AUDIT_EVENT_TITLES = {
  'tenant.created': 'Tenant created',
  'tenant.settings_changed': 'Settings changed',
  'channel.created': 'Channel added',
  'channel.updated': 'Channel changed',
  'delivery.retried': 'Delivery sent again',
  'membership.granted': 'Role given or changed',
  'membership.removed': 'Membership removed',
  'membership.invited': 'Invitation sent',
  'membership.invitation_cancelled': 'Invitation cancelled',
  'membership.invitation_code_sent': 'Invitation code sent',
  'executions.paused': 'Executions paused',
  'executions.resumed': 'Executions resumed',
  'agent_key.created': 'Agent key issued',
  'agent_key.revoked': 'Agent key revoked',
  'agent_key.rotated': 'Agent key rotated',
  'auth.signed_in': 'Signed in',
  'auth.sign_in_failed': 'Sign-in refused',
  'auth.sign_in_locked': 'Sign-in locked',
  'auth.email_code_sent': 'Email code sent',
  'auth.email_verified': 'Email verified',
  'auth.credentials_cleared': 'Credentials cleared',
  'auth.password_changed': 'Password changed',
  'passkey.registered': 'Passkey added',
  'passkey.removed': 'Passkey removed',
  'session.ended': 'Session ended',
  'policy.published': 'Policy published',
  'action.published': 'Action definition published',
  'contract.status_changed': 'Contract rollout changed',
  'proposal.created': 'Proposed',
  'proposal.approval_added': 'Approval added',
  'proposal.approved': 'Approved',
  'proposal.approval_withdrawn': 'Approval withdrawn',
  'proposal.rejected': 'Rejected',
  'proposal.extended': 'Expiry extended',
  'proposal.revised': 'Revised',
  'proposal.expired': 'Expired',
  'proposal.stale': 'Went stale',
  'proposal.repropose_requested': 'Asked to propose again',
  'command.minted': 'Command signed',
  'execution.started': 'Execution started',
  'execution.succeeded': 'Executed',
  'execution.failed': 'Execution failed',
  'execution.outcome_unknown': 'Outcome unknown',
  'execution.checked': 'Outcome checked',
  'oversight.rubber_stamp': 'Rubber-stamping suspected',
  'grant.created': 'Grant made',
  'grant.revoked': 'Grant revoked',
  'grant.ended': 'Grant ended',
} as const satisfies Record<AuditEventType, string>;

/** An event type in words; a type this build does not know (an old export) reads as itself. */
export function auditEventTitle(type: string): string {
  return (AUDIT_EVENT_TITLES as Record<string, string>)[type] ?? type;
}

/** Notifications written to the outbox beside a state change; `command.minted` feeds dispatch. */
export const OUTBOX_TOPICS = {
  'proposal.created': 'a proposal awaits a decision, or was auto-approved',
  'proposal.decided': 'a decision was recorded (approval, quorum, rejection), or an approval was withdrawn',
  'proposal.revised': 'a proposal was replaced by a revision',
  'proposal.expired': 'a proposal expired undecided',
  'proposal.stale': 'a proposal went stale undecided',
  'proposal.repropose_requested': 'an operator asked the agent to propose again',
  'command.minted': 'a signed command is ready to be dispatched to its executor',
  ...EXECUTION_OUTCOMES,
  'proposal.reminder': 'a pending proposal expires soon and nobody has decided it',
  'proposal.escalated': "nobody decided a proposal within the tenant's escalation time",
  'intake.repair_exhausted': "an agent's repair chain ran out: it may not repair that request again",
  'audit.chain_broken': "the tenant's audit chain failed re-verification",
  'oversight.rubber_stamp': "an approver's recent decisions look like rubber-stamping",
} as const satisfies Record<string, string>;

export type OutboxTopic = keyof typeof OUTBOX_TOPICS;

/** Who a notification goes to by email, besides the channel's own address. */
export type Audience = 'deciders' | 'admins' | 'involved';

/**
 * What a notification channel can subscribe to (docs/design.md §9): each is fanned out from an outbox
 * topic. Channels, the CLI's `--events` and webhook `type` fields use these names.
 */
export const NOTIFICATION_EVENTS = {
  'proposal.waiting': { audience: 'deciders', about: 'a proposal waits for a decision' },
  'proposal.reminder': { audience: 'deciders', about: 'a pending proposal expires soon' },
  'proposal.escalated': { audience: 'admins', about: 'nobody decided a proposal in time' },
  'proposal.decided': { audience: 'involved', about: 'a proposal was approved or rejected' },
  'proposal.expired': { audience: 'involved', about: 'a proposal expired undecided' },
  'proposal.stale': { audience: 'involved', about: 'live state changed under a pending proposal' },
  'proposal.repropose_requested': { audience: 'involved', about: 'an operator asked the agent to propose again' },
  'proposal.executed': { audience: 'involved', about: 'the executor committed the write, or nothing was written' },
  'execution.outcome_unknown': { audience: 'admins', about: 'a write may or may not have happened' },
  'intake.repair_exhausted': { audience: 'admins', about: "an agent's repair chain ran out" },
  'audit.chain_broken': { audience: 'admins', about: "the tenant's audit chain failed re-verification" },
  'oversight.rubber_stamp': { audience: 'admins', about: "an approver's recent decisions look like rubber-stamping" },
} as const satisfies Record<string, { audience: Audience; about: string }>;

export type NotificationEvent = keyof typeof NOTIFICATION_EVENTS;

export const NOTIFICATION_EVENT_NAMES = Object.keys(NOTIFICATION_EVENTS) as NotificationEvent[];

export function isNotificationEvent(name: string): name is NotificationEvent {
  return Object.hasOwn(NOTIFICATION_EVENTS, name);
}

/**
 * Deliveries no outbox row stands for: a channel's test message, and a digest of a burst (one
 * message listing the messages that arrived for a channel beyond its threshold within a minute).
 */
export const DELIVERY_EVENTS = {
  'channel.test': 'an admin sent a test message to a channel',
  'notification.digest': 'more messages than the channel takes in a minute, sent as one',
} as const satisfies Record<string, string>;

export type DeliveryEvent = keyof typeof DELIVERY_EVENTS;
