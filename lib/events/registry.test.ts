import { describe, expect, it } from 'vitest';
import { AUDIT_EVENTS, NOTIFICATION_EVENTS, OUTBOX_TOPICS } from './registry';

const DOTTED = /^[a-z]+(_[a-z]+)*\.[a-z]+(_[a-z]+)*$/;

describe('the event registry', () => {
  it.each([
    ['audit event', AUDIT_EVENTS],
    ['outbox topic', OUTBOX_TOPICS],
  ])(
    'names every %s entity.verb in lower case, once, with what it records',
    (_kind, registry: Record<string, string>) => {
      const names = Object.keys(registry);
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) expect(name).toMatch(DOTTED);
      expect(new Set(names.map((name) => name.replace(/[._]/g, ''))).size).toBe(names.length);
      for (const description of Object.values(registry)) expect(description.trim()).not.toBe('');
    },
  );

  // Stored strings: the audit chain hashes them and consumers match them. Renaming one is a migration.
  it('keeps the stored names exactly', () => {
    expect(Object.keys(AUDIT_EVENTS).sort()).toEqual([
      'action.published',
      'agent_key.created',
      'agent_key.revoked',
      'agent_key.rotated',
      'auth.credentials_cleared',
      'auth.email_code_sent',
      'auth.email_verified',
      'auth.password_changed',
      'auth.sign_in_failed',
      'auth.sign_in_locked',
      'auth.signed_in',
      'channel.created',
      'channel.updated',
      'command.minted',
      'contract.status_changed',
      'delivery.retried',
      'execution.checked',
      'execution.failed',
      'execution.outcome_unknown',
      'execution.started',
      'execution.succeeded',
      'executions.paused',
      'executions.resumed',
      'grant.created',
      'grant.ended',
      'grant.revoked',
      'membership.granted',
      'membership.invitation_cancelled',
      'membership.invitation_code_sent',
      'membership.invited',
      'membership.removed',
      'oversight.rubber_stamp',
      'passkey.registered',
      'passkey.removed',
      'policy.published',
      'proposal.approval_added',
      'proposal.approval_withdrawn',
      'proposal.approved',
      'proposal.created',
      'proposal.expired',
      'proposal.extended',
      'proposal.rejected',
      'proposal.repropose_requested',
      'proposal.revised',
      'proposal.stale',
      'session.ended',
      'tenant.created',
      'tenant.settings_changed',
    ]);
    expect(Object.keys(OUTBOX_TOPICS).sort()).toEqual([
      'audit.chain_broken',
      'command.minted',
      'execution.failed',
      'execution.outcome_unknown',
      'execution.succeeded',
      'intake.repair_exhausted',
      'oversight.rubber_stamp',
      'proposal.created',
      'proposal.decided',
      'proposal.escalated',
      'proposal.expired',
      'proposal.reminder',
      'proposal.repropose_requested',
      'proposal.revised',
      'proposal.stale',
    ]);
    expect(Object.keys(NOTIFICATION_EVENTS).sort()).toEqual([
      'audit.chain_broken',
      'execution.outcome_unknown',
      'intake.repair_exhausted',
      'oversight.rubber_stamp',
      'proposal.decided',
      'proposal.escalated',
      'proposal.executed',
      'proposal.expired',
      'proposal.reminder',
      'proposal.repropose_requested',
      'proposal.stale',
      'proposal.waiting',
    ]);
  });
});
