import { describe, expect, it } from 'vitest';
import { decisionRequestSchema, REJECT_PRESETS, rejectPresets, SUSPICIOUS_EVIDENCE_PRESET } from './requests';

const HASH = `sha256:${'a'.repeat(64)}`;

describe('decisionRequestSchema', () => {
  it.each([
    [{ decision: 'approve', payloadHash: HASH }],
    [{ decision: 'approve', payloadHash: HASH, reason: 'Looks right' }],
    [{ decision: 'reject', payloadHash: HASH, reason: 'Customer cancelled' }],
    [{ decision: 'reject', payloadHash: HASH, reason: 'x'.repeat(500) }],
  ])('accepts %j', (input) => {
    expect(decisionRequestSchema.parse(input)).toEqual(input);
  });

  it.each([
    ['a rejection without a reason', { decision: 'reject', payloadHash: HASH }, 'reason'],
    ['an empty reason', { decision: 'reject', payloadHash: HASH, reason: '' }, 'reason'],
    ['a reason over 500 characters', { decision: 'reject', payloadHash: HASH, reason: 'x'.repeat(501) }, 'reason'],
    ['an unknown decision', { decision: 'maybe', payloadHash: HASH }, 'decision'],
    ['a missing hash', { decision: 'approve' }, 'payloadHash'],
    ['an upper-case hash', { decision: 'approve', payloadHash: HASH.toUpperCase() }, 'payloadHash'],
    ['a short hash', { decision: 'approve', payloadHash: 'sha256:abc' }, 'payloadHash'],
    ['a hash with another algorithm', { decision: 'approve', payloadHash: `md5:${'a'.repeat(64)}` }, 'payloadHash'],
    ['an unknown field', { decision: 'approve', payloadHash: HASH, userId: 'usr_x' }, ''],
  ])('refuses %s', (_label, input, field) => {
    const parsed = decisionRequestSchema.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toContain(field);
  });
});

describe('rejectPresets', () => {
  it('leads with the suspicious-evidence preset when a proposal carries that flag', () => {
    expect(rejectPresets(['near_bound', 'suspicious_evidence'])).toEqual([
      SUSPICIOUS_EVIDENCE_PRESET,
      ...REJECT_PRESETS,
    ]);
  });
  it('offers the usual presets otherwise', () => {
    expect(rejectPresets([])).toBe(REJECT_PRESETS);
    expect(rejectPresets(['first_use'])).toBe(REJECT_PRESETS);
  });
});
