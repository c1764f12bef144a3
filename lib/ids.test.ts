import { describe, expect, it } from 'vitest';
import {
  type IdPrefix,
  isProposalId,
  isRequestId,
  isRowId,
  isTenantId,
  newId,
  requestIdSchema,
  toRequestId,
} from './ids';

const PREFIXES: IdPrefix[] = [
  'att',
  'chl',
  'chn',
  'cmd',
  'dec',
  'ecd',
  'exe',
  'hold',
  'idem',
  'inv',
  'key',
  'msg',
  'obx',
  'pol',
  'prp',
  'psk',
  're',
  'ses',
  'usr',
];
const ATTACKS = ['', "x' or 1=1", 'abc\u0000', '\u202Eabc', 'a b', 'a/b', 'ünïcode'];

/** Each id kind: what it accepts and what it refuses, as docs/design.md and docs/api.md describe them. */
const KINDS: { kind: string; check: (value: string) => boolean; accepts: string[]; refuses: string[] }[] = [
  {
    kind: 'row id (any id we mint)',
    check: isRowId,
    accepts: [...PREFIXES.map(newId), 'p_0001', `prp_${'a'.repeat(64)}`, 'abcdefgh_1'],
    refuses: [
      ...ATTACKS,
      'prp_',
      '_abc',
      'PRP_ABC',
      'prp_ABC',
      'toolongprefix_abc',
      `prp_${'a'.repeat(65)}`,
      'prp-abc',
    ],
  },
  {
    kind: 'proposal id',
    check: isProposalId,
    accepts: [newId('prp'), 'prp_1', `prp_${'z'.repeat(64)}`],
    refuses: [...ATTACKS, newId('att'), 'prp_', 'PRP_abc', 'prp_ABC', 'xprp_abc', `prp_${'a'.repeat(65)}`, 'prp_abc '],
  },
  {
    kind: 'tenant id',
    check: isTenantId,
    accepts: ['acme', 'globex', 'a1', '0-team', `a${'b'.repeat(39)}`],
    refuses: [...ATTACKS, 'a', '-acme', 'Acme', 'ac_me', `a${'b'.repeat(40)}`],
  },
  {
    kind: 'request id',
    check: isRequestId,
    accepts: ['req_01', 'A.b:c-d_e', '1', 'x'.repeat(128), 'tool-call_abc:1.2'],
    refuses: [...ATTACKS, 'x'.repeat(129), 'req#1', 'req 01', 'req\n01'],
  },
];

describe.each(KINDS)('$kind', ({ check, accepts, refuses }) => {
  it.each(accepts)('accepts %j', (value) => {
    expect(check(value)).toBe(true);
  });
  it.each(refuses)('refuses %j', (value) => {
    expect(check(value)).toBe(false);
  });
});

describe('newId', () => {
  it.each(PREFIXES)('mints %s_ followed by 20 characters of the base32 alphabet', (prefix) => {
    expect(newId(prefix)).toMatch(new RegExp(`^${prefix}_[0-9abcdefghjkmnpqrstvwxyz]{20}$`));
  });
});

describe('requestIdSchema', () => {
  it('accepts exactly what isRequestId accepts', () => {
    for (const value of [...KINDS[3]!.accepts, ...KINDS[3]!.refuses])
      expect(requestIdSchema.safeParse(value).success, value).toBe(isRequestId(value));
  });
  it.each([
    ['x'.repeat(129), ['too_big']],
    ['req 01', ['invalid_format']],
    ['', ['too_small', 'invalid_format']],
  ])('reports %j as %j, so a long id is told it is too long, not that it does not match', (value, codes) => {
    const result = requestIdSchema.safeParse(value);
    expect(result.error?.issues.map((issue) => issue.code)).toEqual(codes);
  });
});

describe('toRequestId', () => {
  it.each([
    ['tool-call_1', 'tool-call_1'],
    ['tool-call 1/2#3', 'tool-call_1_2_3'],
    ['x'.repeat(200), 'x'.repeat(128)],
  ])('%j → %j, a valid request id', (text, expected) => {
    expect(toRequestId(text)).toBe(expected);
    expect(isRequestId(toRequestId(text))).toBe(true);
  });
});
