import { describe, expect, it } from 'vitest';
import { intakeAttempts } from '@/db/schema';
import { allActions } from '@/lib/actions/registry';
import { setupTestDatabase } from '@/test/db';
import { seededWorld } from '@/test/world';
import { contractMeasurements } from './measurements';
import { MEASUREMENT_WINDOWS, type MeasurementWindow } from './windows';

/**
 * The Contracts page's numbers against counts made here, in plain code, over a known mix of
 * attempts: every outcome and rejection kind, repairs, shadow verdicts, other tenants and other
 * actions, and attempts older than the window.
 */
const t = setupTestDatabase();
const seeded = seededWorld(t);
const NOW = new Date('2031-03-01T12:00:00Z');

type Row = typeof intakeAttempts.$inferInsert;

const KINDS = [
  { outcome: 'accepted', httpStatus: 201 },
  {
    outcome: 'rejected',
    httpStatus: 422,
    errorKind: 'schema',
    errorCode: 'contract_violation',
    issues: [
      { field: 'quantity', code: 'too_big' },
      { field: 'sku', code: 'required' },
    ],
  },
  { outcome: 'rejected', httpStatus: 403, errorKind: 'authorization', errorCode: 'not_authorized' },
  { outcome: 'rejected', httpStatus: 422, errorKind: 'business_rule', errorCode: 'hold_limit' },
  { outcome: 'rejected', httpStatus: 400, errorKind: 'malformed', errorCode: 'invalid_json' },
  { outcome: 'replayed', httpStatus: 200 },
] as const;

function mix(tenantId: string, agentKeyId: string, action: string, count: number, tag: string): Row[] {
  return Array.from({ length: count }, (_, i): Row => {
    const kind = KINDS[i % KINDS.length]!;
    const version = i % 3 === 0 ? 2 : 1;
    const repair = i % 7 === 6;
    const shadowAccepts = i % 4 === 0;
    return {
      id: `att_${tag}_${i}`,
      tenantId,
      agentKeyId,
      agentName: 'acme-support-bot',
      requestId: `${tag}_${i}`,
      repairOf: repair ? `${tag}_${i - 1}` : null,
      rootRequestId: repair ? `${tag}_root_${i % 5}` : `${tag}_${i}`,
      action,
      contractVersion: version,
      ...kind,
      issues: 'issues' in kind ? [...kind.issues] : null,
      shadow:
        version === 1 && kind.outcome !== 'replayed'
          ? [{ version: 2, accepted: shadowAccepts, codes: shadowAccepts ? [] : ['sku:invalid_format'] }]
          : null,
      createdAt: new Date(NOW.getTime() - (i * 20 + 1) * 60_000),
    };
  });
}

/** The same numbers, counted in plain code from the rows. */
function expected(rows: Row[], window: MeasurementWindow) {
  const since = NOW.getTime() - MEASUREMENT_WINDOWS[window].ms;
  const inside = rows.filter((r) => r.createdAt!.getTime() >= since);
  const versions = [1, 2].map((version) => {
    const mine = inside.filter((r) => r.contractVersion === version);
    const rejected = (kind: string) => mine.filter((r) => r.outcome === 'rejected' && r.errorKind === kind).length;
    const chains = (only: (r: Row) => boolean) =>
      new Set(mine.filter((r) => r.repairOf && only(r)).map((r) => `${r.agentKeyId}/${r.rootRequestId}`)).size;
    return {
      version,
      attempts: mine.length,
      accepted: mine.filter((r) => r.outcome === 'accepted').length,
      replayed: mine.filter((r) => r.outcome === 'replayed').length,
      rejected: {
        schema: rejected('schema'),
        authorization: rejected('authorization'),
        businessRule: rejected('business_rule'),
        other: rejected('malformed'),
      },
      originals: mine.filter((r) => !r.repairOf && r.outcome !== 'replayed').length,
      repairs: mine.filter((r) => r.repairOf && r.outcome !== 'replayed').length,
      repairedChains: chains(() => true),
      repairedAccepted: chains((r) => r.outcome === 'accepted'),
    };
  });
  const judged = inside.filter((r) => r.shadow);
  const passed = (r: Row) =>
    r.outcome !== 'rejected' || r.errorKind === 'authorization' || r.errorKind === 'business_rule';
  const shadow = {
    version: 2,
    evaluated: judged.length,
    wouldRefuse: judged.filter((r) => !r.shadow![0]!.accepted && passed(r)).length,
    wouldAccept: judged.filter((r) => r.shadow![0]!.accepted && r.errorCode === 'contract_violation').length,
  };
  const fieldFailures = inside.filter((r) => r.issues).length;
  return { versions, shadow, fieldFailures, inside };
}

describe('contract measurements', () => {
  it.each(['1h', '24h', '7d', '30d'] as const)('match counts made independently over the %s window', async (window) => {
    const acme = seeded.acme;
    const rows = mix(acme.tenantId, acme.keyId, 'hold_stock', 120, `m${window}`);
    // Noise that must not count: another tenant, another action.
    const noise = [
      ...mix(seeded.globex.tenantId, seeded.globex.keyId, 'hold_stock', 30, `g${window}`),
      ...mix(acme.tenantId, acme.keyId, 'issue_refund', 30, `r${window}`),
    ];
    await t.db.delete(intakeAttempts);
    await t.db.insert(intakeAttempts).values([...rows, ...noise]);

    const holdStock = allActions().find((a) => a.name === 'hold_stock')!;
    const measured = await contractMeasurements(t.db, acme.tenantId, [holdStock], window, NOW);
    const [action] = measured.actions;
    const want = expected(rows, window);
    expect(want.inside.length).toBeGreaterThan(0);
    expect(action!.versions).toEqual(want.versions);
    expect(
      action!.shadow.map(({ version, evaluated, wouldRefuse, wouldAccept }) => ({
        version,
        evaluated,
        wouldRefuse,
        wouldAccept,
      })),
    ).toEqual(want.shadow.evaluated > 0 ? [want.shadow] : []);
    for (const s of action!.shadow) {
      expect(s.wouldRefuseExamples.length).toBe(Math.min(3, s.wouldRefuse));
      expect(s.wouldAcceptExamples.length).toBe(Math.min(3, s.wouldAccept));
      for (const example of s.wouldRefuseExamples)
        expect(rows.find((r) => r.id === example.id)?.outcome).not.toBe('replayed');
    }
    // Each schema refusal carries two failing fields; the top fields count them per version.
    const fields = action!.topFields.filter((f) => f.field === 'quantity');
    for (const version of [1, 2]) {
      const failures = want.inside.filter((r) => r.issues && r.contractVersion === version).length;
      expect(fields.find((f) => f.version === version)?.count ?? 0).toBe(failures);
    }
    const codes = action!.topCodes.filter((c) => c.code === 'hold_limit');
    expect(codes.reduce((sum, c) => sum + c.count, 0)).toBe(
      want.inside.filter((r) => r.errorCode === 'hold_limit').length,
    );
    // The chart's points add up to the same attempts and rejections.
    for (const version of [1, 2]) {
      const points = action!.rate.filter((p) => p.version === version);
      const counts = want.versions.find((v) => v.version === version)!;
      expect(points.reduce((sum, p) => sum + p.attempts, 0)).toBe(counts.attempts);
      expect(points.reduce((sum, p) => sum + p.rejected, 0)).toBe(
        counts.rejected.schema + counts.rejected.authorization + counts.rejected.businessRule + counts.rejected.other,
      );
    }
  });
});
