import { describe, expect, it } from 'vitest';
import type { FlagKind } from '@/db/proposal-flags';
import { type SeverityLevel, severityOf, severityTitle } from './severity';

const flags = (...kinds: FlagKind[]) => kinds.map((kind) => ({ kind }));

describe('severityOf folds risk, flags and quorum into one level', () => {
  const cases: {
    name: string;
    risk: string;
    kinds: FlagKind[];
    need: number;
    level: SeverityLevel;
    raisedBy: string[];
  }[] = [
    { name: 'a plain low-risk item stays low', risk: 'low', kinds: [], need: 1, level: 'low', raisedBy: [] },
    { name: 'the action’s risk leads', risk: 'medium', kinds: [], need: 1, level: 'medium', raisedBy: [] },
    { name: 'high stays high', risk: 'high', kinds: [], need: 1, level: 'high', raisedBy: [] },
    { name: 'an unknown risk reads low', risk: 'weird', kinds: [], need: 1, level: 'low', raisedBy: [] },
    {
      name: 'suspicious evidence is high',
      risk: 'low',
      kinds: ['suspicious_evidence'],
      need: 1,
      level: 'high',
      raisedBy: ['suspicious evidence'],
    },
    {
      name: 'invisible characters are high',
      risk: 'low',
      kinds: ['invisible_characters'],
      need: 1,
      level: 'high',
      raisedBy: ['invisible characters'],
    },
    {
      name: 'look-alike characters are high',
      risk: 'medium',
      kinds: ['lookalike_characters'],
      need: 1,
      level: 'high',
      raisedBy: ['look-alike characters'],
    },
    {
      name: 'near a bound is at least medium',
      risk: 'low',
      kinds: ['near_bound'],
      need: 1,
      level: 'medium',
      raisedBy: ['near a bound'],
    },
    {
      name: 'first use is at least medium',
      risk: 'low',
      kinds: ['first_use'],
      need: 1,
      level: 'medium',
      raisedBy: ['first use'],
    },
    {
      name: 'a notable flag does not lower or re-explain a medium',
      risk: 'medium',
      kinds: ['first_use'],
      need: 1,
      level: 'medium',
      raisedBy: [],
    },
    {
      name: 'two approvers make it at least medium',
      risk: 'low',
      kinds: [],
      need: 2,
      level: 'medium',
      raisedBy: ['needs 2 approvers'],
    },
    {
      name: 'the issue’s refund: suspicious ticket and two approvers',
      risk: 'low',
      kinds: ['suspicious_evidence'],
      need: 2,
      level: 'high',
      raisedBy: ['suspicious evidence', 'needs 2 approvers'],
    },
    {
      name: 'high with flags stays high, nothing to explain',
      risk: 'high',
      kinds: ['suspicious_evidence', 'near_bound'],
      need: 2,
      level: 'high',
      raisedBy: [],
    },
    {
      name: 'a flag twice is named once',
      risk: 'low',
      kinds: ['near_bound', 'near_bound'],
      need: 1,
      level: 'medium',
      raisedBy: ['near a bound'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(severityOf({ risk: c.risk, flags: flags(...c.kinds), approvalsNeeded: c.need })).toEqual({
        level: c.level,
        raisedBy: c.raisedBy,
      });
    });
  }
});

describe('severityTitle', () => {
  it('says only the level when nothing raised it', () => {
    expect(severityTitle({ level: 'low', raisedBy: [] }, 'low')).toBe('low risk');
  });
  it('says what raised it above the action’s own risk', () => {
    expect(severityTitle({ level: 'high', raisedBy: ['suspicious evidence', 'needs 2 approvers'] }, 'low')).toBe(
      'high risk (the action alone is low; raised by suspicious evidence, needs 2 approvers)',
    );
  });
});
