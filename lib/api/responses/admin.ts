import { z } from 'zod';
import { channelKindEnum, deliveryStatusEnum, roleEnum } from '@/db/schema';
import { policyEntrySchema } from '@/lib/policy/requests';
import { routingRuleSchema } from '@/lib/routing-rules';
import { routingSchema } from './proposals';

/**
 * The answers of the admin API (`/api/v1/admin/…`) and of accepting an invitation. The domain
 * functions answer `Date`s, which JSON writes as ISO strings: `instant` is that codec, so the
 * handlers' types are these schemas' outputs and the document (`io: 'input'`) shows the wire form.
 * Objects are strict: a field added to an answer and not here fails the live check.
 */

export const instant = z.codec(z.iso.datetime({ offset: true }), z.date(), {
  decode: (text) => new Date(text),
  encode: (date) => date.toISOString(),
});
const isoText = z.iso.datetime({ offset: true });
const role = z.enum(roleEnum.enumValues);

const agentKeySchema = z.strictObject({
  id: z.string(),
  tenantId: z.string(),
  agentName: z.string(),
  keyPrefix: z.string(),
  actions: z.array(z.string()),
  grants: z.record(z.string(), z.array(z.string())),
  createdAt: instant,
  lastUsedAt: instant.nullable(),
  revokedAt: instant.nullable(),
  expiresAt: instant.nullable(),
  replacedById: z.string().nullable(),
  state: z.enum(['active', 'expiring', 'expired', 'revoked']),
});

export const agentKeyListSchema = z.strictObject({ agentKeys: z.array(agentKeySchema) });
/** The key itself is in this answer and never again. */
export const issuedAgentKeySchema = z.strictObject({ agentKey: agentKeySchema, key: z.string() });
export const revokedAgentKeySchema = z.strictObject({
  agentKey: agentKeySchema,
  revoked: z
    .array(agentKeySchema)
    .describe(
      'Every key this call revoked: the one named, or with scope `agent` every key of the agent that still worked.',
    ),
  stillWorking: z
    .array(agentKeySchema)
    .describe(
      'The agent’s keys that still work after this call; each works until its `expiresAt` (null: until revoked).',
    ),
});

const rolloutSchema = z.strictObject({
  action: z.string(),
  title: z.string(),
  versions: z.array(
    z.strictObject({
      version: z.int(),
      status: z.enum(['current', 'supported', 'shadow', 'retired']),
      since: isoText.nullable(),
      sunsetAt: isoText.nullable(),
      senders: z.array(
        z.strictObject({ agentKeyId: z.string(), agentName: z.string(), lastAt: isoText, attempts: z.int() }),
      ),
    }),
  ),
});

export const contractRolloutListSchema = z.strictObject({ actions: z.array(rolloutSchema) });
export const contractStatusChangedSchema = z.strictObject({ changed: z.boolean(), action: rolloutSchema.optional() });

const pendingInvitationSchema = z.strictObject({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role,
  expiresAt: instant,
  createdAt: instant,
});

export const memberListSchema = z.strictObject({
  members: z.array(
    z.strictObject({ userId: z.string(), name: z.string(), email: z.string(), role, joinedAt: instant }),
  ),
  invitations: z.array(pendingInvitationSchema),
});
/** The one-time link is in this answer and never again. */
export const invitationCreatedSchema = z.strictObject({ invitationUrl: z.url(), invitation: pendingInvitationSchema });
export const invitationCancelledSchema = z.strictObject({ invitation: pendingInvitationSchema });
export const roleChangedSchema = z.strictObject({
  member: z.strictObject({ userId: z.string(), role, previousRole: role.nullable() }),
});
export const memberRemovedSchema = z.strictObject({ removed: z.strictObject({ userId: z.string(), role }) });
export const emailCodeSentSchema = z.strictObject({
  sentTo: z
    .string()
    .describe('The address the code went to: the signed-in account’s own, or the one the invitation names.'),
});
export const emailVerifiedSchema = z.strictObject({
  verifiedAt: instant,
  credentialsCleared: z
    .boolean()
    .describe(
      'True when the account was made by an invitation link: proving its address removed its password and ' +
        'passkeys and ended its sessions (this one too); its owner signs in anew.',
    ),
});
export const invitationAcceptedSchema = z.strictObject({
  email: z.string(),
  tenantName: z.string(),
  role,
  signIn: z.enum(['password', 'sso', 'existing']),
});

const channelSchema = z.strictObject({
  id: z.string(),
  tenantId: z.string(),
  kind: z.enum(channelKindEnum.enumValues),
  target: z.string().describe('A Slack URL (itself a credential) only in part.'),
  events: z.array(z.string()),
  enabled: z.boolean(),
  digestThreshold: z
    .int()
    .describe(
      'More than this many messages within a minute, and the rest of that minute go as one digest when it is up; ' +
        '0 sends each on its own.',
    ),
  createdAt: instant,
  updatedAt: instant,
  hasSecret: z.boolean(),
});

const deliverySchema = z.strictObject({
  id: z.string(),
  channelId: z.string(),
  event: z.string(),
  proposalId: z.string().nullable(),
  status: z.enum(deliveryStatusEnum.enumValues),
  attempts: z.int(),
  lastError: z.string().nullable(),
  lastStatus: z.int().nullable(),
  latencyMs: z.int().nullable(),
  createdAt: instant,
  deliveredAt: instant.nullable(),
  deadAt: instant.nullable(),
  nextAttemptAt: instant.nullable(),
  digestId: z
    .string()
    .nullable()
    .describe(
      'The digest this message waits in and is sent with (its own delivery, event `notification.digest`); null ' +
        'when it goes on its own.',
    ),
  channelKind: z.enum(channelKindEnum.enumValues),
  channelTarget: z.string(),
});

const settingsSchema = z.strictObject({
  reminderLeadMinutes: z.int(),
  escalateAfterMinutes: z.int(),
  notifyWithValues: z.boolean(),
});

export const notificationsOverviewSchema = z.strictObject({
  settings: settingsSchema.optional(),
  channels: z.array(channelSchema),
  deliveries: z.array(deliverySchema),
});
/** A webhook's signing secret is in this answer and never again (`null` for slack and email). */
export const channelCreatedSchema = z.strictObject({ channel: channelSchema, secret: z.string().nullable() });
export const channelChangedSchema = z.strictObject({ channel: channelSchema });
export const deliveryAnswerSchema = z.strictObject({ delivery: deliverySchema });
export const settingsAnswerSchema = z.strictObject({ settings: settingsSchema });

const executionsSchema = z.strictObject({
  paused: z.boolean(),
  pausedAt: instant.nullable(),
  pausedBy: z
    .strictObject({ id: z.string(), name: z.string().nullable().describe('Null when the CLI paused.') })
    .nullable(),
  reason: z.string().nullable(),
});
export const executionsStateSchema = z.strictObject({ executions: executionsSchema });
/** `changed` is false when the tenant already was in the asked-for state (nothing recorded). */
export const executionsChangedSchema = z.strictObject({ changed: z.boolean(), executions: executionsSchema });

const policyEntry = policyEntrySchema;
const rulesAndExpiry = z.strictObject({ rules: z.array(routingRuleSchema), expiryHours: z.int() });

export const policyListSchema = z.strictObject({ policies: z.array(policyEntry) });
export const policySaveResultSchema = z.strictObject({
  saved: z.array(
    z.strictObject({
      action: z.string(),
      previousVersion: z.int(),
      version: z.int(),
      before: rulesAndExpiry,
      after: rulesAndExpiry,
    }),
  ),
  unchanged: z.array(z.string()),
  policies: z.array(policyEntry),
});
export const policyPreviewAnswerSchema = z.strictObject({
  action: z.string(),
  routing: routingSchema,
  rule: z.strictObject({ index: z.int(), id: z.string(), description: z.string() }).nullable(),
  expiryHours: z.int(),
  resource: z.string(),
  evaluatedAt: isoText,
  usesAggregates: z.boolean(),
});

const routedAs = z.strictObject({
  rule: z.string(),
  outcome: z.enum(['auto_approve', 'needs_approval', 'deny']),
  approvals: z.int(),
  role: z.enum(['approver', 'admin']),
});
export const policyPlanAnswerSchema = z.strictObject({
  changes: z
    .array(
      z.strictObject({
        action: z.string(),
        version: z.int(),
        nextVersion: z.int(),
        words: z.array(z.string()).describe('The change in sentences.'),
      }),
    )
    .describe('Each action the draft changes; an unchanged one is left out.'),
  warnings: z
    .array(z.strictObject({ action: z.string(), ruleId: z.string(), message: z.string() }))
    .describe(
      'Rules of the changed actions whose description or id names an amount their bounds no longer have (a rule ' +
        'with no bound is read against the bounds of the rules before it). Ids are never renamed: past proposals ' +
        'cite them. Publishing is not refused.',
    ),
  backtest: z.strictObject({
    days: z.int(),
    since: isoText,
    proposals: z.int().describe('How many proposals of the changed actions were replayed.'),
    limit: z.int(),
    truncated: z
      .boolean()
      .describe('More than `limit` proposals in the period: only the newest `limit` were replayed.'),
    flips: z.array(
      z.strictObject({
        proposalId: z.string(),
        action: z.string(),
        createdAt: isoText,
        summary: z.string().describe('The action and resource id, never a value.'),
        before: routedAs,
        after: routedAs,
      }),
    ),
  }),
});

export type AgentKeyList = z.infer<typeof agentKeyListSchema>;
export type IssuedAgentKey = z.infer<typeof issuedAgentKeySchema>;
export type RevokedAgentKey = z.infer<typeof revokedAgentKeySchema>;
export type ContractRolloutList = z.infer<typeof contractRolloutListSchema>;
export type ContractStatusChanged = z.infer<typeof contractStatusChangedSchema>;
export type MemberList = z.infer<typeof memberListSchema>;
export type InvitationCreated = z.infer<typeof invitationCreatedSchema>;
export type InvitationCancelled = z.infer<typeof invitationCancelledSchema>;
export type RoleChanged = z.infer<typeof roleChangedSchema>;
export type MemberRemoved = z.infer<typeof memberRemovedSchema>;
export type EmailCodeSent = z.infer<typeof emailCodeSentSchema>;
export type EmailVerified = z.infer<typeof emailVerifiedSchema>;
export type InvitationAccepted = z.infer<typeof invitationAcceptedSchema>;
export type NotificationsOverview = z.infer<typeof notificationsOverviewSchema>;
export type ChannelCreated = z.infer<typeof channelCreatedSchema>;
export type ChannelChanged = z.infer<typeof channelChangedSchema>;
export type DeliveryAnswer = z.infer<typeof deliveryAnswerSchema>;
export type SettingsAnswer = z.infer<typeof settingsAnswerSchema>;
export type ExecutionsStateAnswer = z.infer<typeof executionsStateSchema>;
export type ExecutionsChanged = z.infer<typeof executionsChangedSchema>;
export type PolicyList = z.infer<typeof policyListSchema>;
export type PolicySaveAnswer = z.infer<typeof policySaveResultSchema>;
export type PolicyPreviewAnswer = z.infer<typeof policyPreviewAnswerSchema>;
export type PolicyPlanAnswer = z.infer<typeof policyPlanAnswerSchema>;
