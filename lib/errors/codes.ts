/** The family of every error a client can see (the `kind` of the one error body, docs/api.md). */
export const ERROR_KINDS = [
  'malformed',
  'schema',
  'business_rule',
  'authorization',
  'authentication',
  'idempotency',
  'rate_limit',
  'decision',
  'not_found',
  'forbidden',
  'unavailable',
  'internal',
  /** The executor's refusal of a signed command (lib/commands/verify.ts). */
  'command',
] as const;

export type ErrorKind = (typeof ERROR_KINDS)[number];

/**
 * The families of refusal, each answered with one status and one kind; the category also names a
 * refused intake in telemetry (docs/observability.md) and tells intake which refusals are repairable.
 */
const CATEGORIES = {
  /** A request that cannot be read at all (a bad body or query string). */
  malformed: { status: 400, kind: 'malformed' },
  /** Nobody we know is asking. */
  unauthenticated: { status: 401, kind: 'authentication' },
  /** A key may not use a resource or an action (missing and foreign alike). */
  not_permitted: { status: 403, kind: 'authorization' },
  /** A person's role or address does not allow this. */
  forbidden: { status: 403, kind: 'forbidden' },
  /** An approver may not decide this proposal. */
  decision_forbidden: { status: 403, kind: 'decision' },
  not_found: { status: 404, kind: 'not_found' },
  /** The state of things refuses the change (the last admin, an already revoked key). */
  conflict: { status: 409, kind: 'business_rule' },
  /** The proposal's state refuses the decision (already decided, expired, stale). */
  decision_conflict: { status: 409, kind: 'decision' },
  /** A request id reused for another payload. */
  idempotency_conflict: { status: 409, kind: 'idempotency' },
  /** Something that was once valid is used up or expired (an invitation, an emailed code). */
  gone: { status: 410, kind: 'business_rule' },
  /** The input does not have the shape asked for. */
  invalid: { status: 422, kind: 'schema' },
  /** The input has the right shape but a rule of the domain refuses it. */
  refused: { status: 422, kind: 'business_rule' },
  rate_limited: { status: 429, kind: 'rate_limit' },
  /** A service we rely on failed to do its part (the mail server). */
  upstream_failed: { status: 502, kind: 'unavailable' },
  /** A service we rely on could not be reached or is not configured; nothing was changed. */
  unavailable: { status: 503, kind: 'unavailable' },
  internal: { status: 500, kind: 'internal' },
} as const satisfies Record<string, { status: number; kind: ErrorKind }>;

export type ErrorCategory = keyof typeof CATEGORIES | 'command';

type ErrorRow = {
  category: ErrorCategory;
  status: number;
  kind: ErrorKind;
  /**
   * The code on the wire when it is not the key: a public code answered with two statuses, or a
   * reason kept inside and answered as a public code (the gates' reasons as `not_authorized`).
   */
  answersAs?: string;
  /** Refused only by the command line (lib/admin/accounts.ts), never by the API. */
  cliOnly?: true;
};

// A row's status and kind are public (clients branch on them): change one only with the clients.
const of = <C extends keyof typeof CATEGORIES>(category: C) => ({ category, ...CATEGORIES[category] }) as const;
const malformed = of('malformed');
const schema = of('invalid');
const conflict = of('conflict');
const gone = of('gone');
const refused = of('refused');
const notPermitted = of('not_permitted');
const forbidden = of('forbidden');
const notFound = of('not_found');
const rateLimited = of('rate_limited');
const decisionForbidden = of('decision_forbidden');
const decisionConflict = of('decision_conflict');
const cliOnly = <R extends ErrorRow>(row: R) => ({ ...row, cliOnly: true }) as const;
const command = (status: number) => ({ category: 'command', status, kind: 'command' }) as const;

/**
 * Every error code any answer carries (the HTTP API, the MCP tools, the executor), closed: a
 * `Refusal` takes only a key of this table, so a new code is a new row here (CONTRIBUTING.md), and
 * the OpenAPI document lists exactly these codes. The key is the wire code unless `answersAs` says
 * otherwise.
 */
export const ERROR_CODES = {
  // Requests that cannot be read (lib/http/body.ts, methods.ts, query strings).
  invalid_json: malformed,
  invalid_utf8: malformed,
  duplicate_key: malformed,
  forbidden_key: malformed,
  too_deep: malformed,
  nul_character: malformed,
  lone_surrogate: malformed,
  invalid_query: malformed,
  /** The MCP endpoint's JSON-RPC refusal of a batch (lib/http/mcp-transport.ts). */
  batch_not_supported: malformed,
  too_large: { ...malformed, status: 413 },
  unsupported_media_type: { ...malformed, status: 415 },
  method_not_allowed: { ...malformed, status: 405 },

  // Who is asking.
  unauthenticated: of('unauthenticated'),
  not_authorized: notPermitted,
  action_not_allowed: notPermitted,
  /** An MCP tool this key does not have (a tool error, lib/mcp/server.ts). */
  unknown_tool: notPermitted,
  denied_by_policy: notPermitted,
  // The Meaning and Authority gates' reasons: intake answers every one as the same not_authorized.
  resource_not_found: { ...notPermitted, answersAs: 'not_authorized' },
  evidence_not_found: { ...notPermitted, answersAs: 'not_authorized' },
  not_covered: { ...notPermitted, answersAs: 'not_authorized' },
  forbidden,
  cross_origin: forbidden,
  forbidden_role: forbidden,
  invitation_for_another_address: forbidden,

  not_found: notFound,
  /** A membership change for someone outside the tenant: answered as any missing resource. */
  not_member: { ...notFound, answersAs: 'not_found' },
  invitation_not_found: notFound,

  // Bodies of the wrong shape: each names its issues (docs/design.md §4).
  contract_violation: schema,
  unsupported_contract_version: schema,
  unknown_repair_target: schema,
  repair_limit_reached: schema,
  invalid_arguments: schema,
  invalid_acceptance: schema,
  invalid_code: schema,
  invalid_code_request: schema,
  invalid_invitation: schema,
  invalid_role_change: schema,
  invalid_grant: schema,
  invalid_revocation: schema,
  invalid_policy: schema,
  /** An action definition's body or document (lib/definitions/api.ts): `problems` name each by its path. */
  invalid_definition: schema,
  invalid_preview: schema,
  invalid_sample: schema,
  invalid_decision: schema,
  invalid_revision: schema,
  invalid_settings: schema,
  invalid_channel: schema,
  invalid_target: schema,
  invalid_contract_status: schema,
  invalid_rotation: schema,
  invalid_deletion: schema,
  invalid_resume: schema,
  invalid_extension: schema,
  invalid_recheck: schema,
  invalid_repropose_request: schema,
  invalid_test: schema,
  invalid_retry: schema,
  invalid_passkey: schema,
  invalid_passkey_options: schema,
  invalid_decision_challenge: schema,
  invalid_passkey_removal: schema,
  invalid_passkey_settings: schema,
  invalid_evidence_settings: schema,
  invalid_pause: schema,
  invalid_days: schema,
  sunset_requires_supported: schema,
  sunset_in_past: schema,
  no_change: schema,
  locked_field: schema,
  code_required: schema,
  password_required: schema,
  signed_in: schema,
  sso_unavailable: schema,

  // The state of things refuses the change.
  already_revoked: conflict,
  already_rotated: conflict,
  agent_already_stopped: conflict,
  last_admin: conflict,
  already_member: conflict,
  address_unverified: conflict,
  sign_in_required: conflict,
  already_verified: conflict,
  grant_ended: conflict,
  not_your_approval: conflict,
  not_approved: conflict,
  not_grantable: conflict,
  policy_changed: conflict,
  already_granted: conflict,
  stale_policy: conflict,
  /** Another publish of the action's definition came first: plan again (lib/definitions/api.ts). */
  stale_definition: conflict,
  passkey_required_elsewhere: conflict,
  last_passkey: conflict,
  passkey_exists: conflict,
  no_passkey: conflict,
  cannot_retire_current: conflict,
  cannot_demote_current: conflict,
  retired_needs_reinstatement: conflict,
  invalid_transition: conflict,
  not_dead: conflict,
  idempotency_conflict: of('idempotency_conflict'),
  invitation_used: gone,
  invitation_expired: gone,
  code_expired: gone,
  passkey_challenge_unknown: gone,

  // Input of the right shape that a rule of the domain refuses.
  code_wrong: refused,
  sample_not_found: refused,
  passkey_host: refused,
  passkey_invalid: refused,
  target_not_allowed: refused,
  // The actions' own rules (lib/actions/<action>: rules).
  /** A rule of a tenant's action definition did not hold: answered with the rule's own code (docs/actions.md). */
  rule_not_met: refused,
  hold_limit: refused,
  currency_mismatch: refused,
  order_not_refundable: refused,
  exceeds_refundable_balance: refused,

  rate_limited: rateLimited,
  too_many_attempts: rateLimited,
  code_recently_sent: rateLimited,
  code_attempts_exhausted: rateLimited,

  // An approver's decision, refused (lib/decisions).
  decision_forbidden_role: { ...decisionForbidden, answersAs: 'forbidden_role' },
  self_approval: decisionForbidden,
  passkey_required: decisionForbidden,
  passkey_not_yours: decisionForbidden,
  decision_passkey_invalid: { ...decisionForbidden, answersAs: 'passkey_invalid' },
  already_decided: decisionConflict,
  already_extended: decisionConflict,
  already_requested: decisionConflict,
  not_changed: decisionConflict,
  expired: decisionConflict,
  stale: decisionConflict,
  hash_mismatch: decisionConflict,
  passkey_statement_mismatch: decisionConflict,
  passkey_challenge_expired: decisionConflict,
  decision_passkey_challenge_unknown: { ...decisionConflict, answersAs: 'passkey_challenge_unknown' },
  passkey_counter: decisionConflict,

  email_not_sent: of('upstream_failed'),
  email_unavailable: of('unavailable'),
  systems_unavailable: of('unavailable'),
  internal_error: of('internal'),

  // Account administration from the command line.
  invalid_tenant_id: cliOnly(schema),
  invalid_email: cliOnly(schema),
  invalid_password: cliOnly(schema),
  // Also the admin API's answer to a bad agent key body (lib/admin/agent-key-requests.ts).
  invalid_agent_key: schema,
  tenant_exists: cliOnly(conflict),
  user_exists: cliOnly(conflict),

  // The executor's refusals of a signed command (docs/design.md §7): nothing was done.
  malformed: command(400),
  alg_not_allowed: command(401),
  key_header_not_allowed: command(401),
  unknown_kid: command(401),
  bad_signature: command(401),
  wrong_typ: command(401),
  wrong_issuer: command(401),
  command_expired: { ...command(401), answersAs: 'expired' },
  not_yet_valid: command(401),
  wrong_audience: command(403),
  action_not_in_scope: command(403),
  unknown_command: command(404),
  unknown_scope: command(404),
  command_hash_mismatch: { ...command(409), answersAs: 'hash_mismatch' },
  command_too_large: { ...command(413), answersAs: 'too_large' },
  command_unsupported_media_type: { ...command(415), answersAs: 'unsupported_media_type' },
  executions_paused: command(503),
} as const satisfies Record<string, ErrorRow>;

export type ErrorKey = keyof typeof ERROR_CODES;

type CliOnlyKey = { [K in ErrorKey]: (typeof ERROR_CODES)[K] extends { cliOnly: true } ? K : never }[ErrorKey];

/** A key the API may answer with: every key but the command line's own (left out of the OpenAPI enum). */
export type ApiErrorKey = Exclude<ErrorKey, CliOnlyKey>;

type AnswersAs<K extends ErrorKey> = (typeof ERROR_CODES)[K] extends { answersAs: infer A extends string } ? A : K;

/** A code as answers carry it: the key, or the row's `answersAs`. */
export type WireCode = { [K in ErrorKey]: AnswersAs<K> }[ErrorKey];

export const wireCode = (key: ErrorKey): WireCode => {
  const row: ErrorRow = ERROR_CODES[key];
  return (row.answersAs ?? key) as WireCode;
};

/** Every code an API answer may carry, once (the OpenAPI enum and the clients' lists). */
export const WIRE_CODES: readonly WireCode[] = [
  ...new Set((Object.keys(ERROR_CODES) as ErrorKey[]).filter((key) => !('cliOnly' in ERROR_CODES[key])).map(wireCode)),
];
