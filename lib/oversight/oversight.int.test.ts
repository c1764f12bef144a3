import { and, count, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, decisions, outbox, oversightAlarms, type Proposal, proposals, proposalViews } from '@/db/schema';
import { chainAllPending } from '@/lib/events/chainer';
import { newId } from '@/lib/ids';
import { raiseRubberStampAlarms } from '@/lib/jobs/oversight-alarm';
import { setupTestDatabase } from '@/test/db';
import { expectApiError } from '@/test/errors';
import { submitAs } from '@/test/intake';
import { setupRouteSystems } from '@/test/systems';
import { type PersonName, type SeededWorld, seedWorld } from '@/test/world';
import { oversightDays, oversightFigures } from './figures';
import { updateOversightSettings } from './settings';
import { recordView } from './views';

/** Oversight figures and the rubber-stamp alarm (docs/oversight.md) against a hand-made history. */
const t = setupTestDatabase();
const systemsOfRecord = await setupRouteSystems(t);
let world: SeededWorld;
let template: Proposal;

/** A Wednesday: the alarm's week began on Monday 2026-06-08. */
const NOW = new Date('2026-06-10T12:00:00.000Z');
const at = (secondsBeforeNow: number) => new Date(NOW.getTime() - secondsBeforeNow * 1000);

beforeAll(async () => {
  world = await seedWorld(t.db);
  const body = {
    requestId: 'req_oversight_template',
    action: 'hold_stock',
    contractVersion: 1,
    args: { sku: 'filter-blue', quantity: 1 },
  };
  template = (await submitAs(t.db, systemsOfRecord.client, await world.agent('acme'), body)).proposal;
});

type Decided = {
  person: PersonName;
  decision: 'approve' | 'reject';
  createdSecondsAgo: number;
  waitSeconds: number;
  dwellSeconds?: number;
  channel?: 'notification' | 'queue' | 'page';
};

/**
 * A proposal of the template's tenant and action, decided by `person` at a known time, with their first look
 * `dwellSeconds` before.
 */
async function decided(d: Decided): Promise<void> {
  const id = newId('prp');
  const decidedAt = at(d.createdSecondsAgo - d.waitSeconds);
  await t.db.insert(proposals).values({
    ...template,
    id,
    requestId: null,
    status: d.decision === 'approve' ? 'approved' : 'rejected',
    createdAt: at(d.createdSecondsAgo),
    decidedAt,
  });
  await t.db.insert(decisions).values({
    id: newId('dec'),
    tenantId: 'acme',
    proposalId: id,
    userId: world.userId(d.person),
    decision: d.decision,
    payloadHash: template.payloadHash,
    createdAt: decidedAt,
  });
  if (d.dwellSeconds !== undefined) {
    await t.db.insert(proposalViews).values({
      tenantId: 'acme',
      proposalId: id,
      userId: world.userId(d.person),
      channel: d.channel ?? 'queue',
      firstSeenAt: new Date(decidedAt.getTime() - d.dwellSeconds * 1000),
    });
  }
}

async function ended(status: 'expired' | 'stale', secondsAgo: number): Promise<void> {
  await t.db.insert(proposals).values({
    ...template,
    id: newId('prp'),
    requestId: null,
    status,
    createdAt: at(secondsAgo + 600),
    decidedAt: at(secondsAgo),
  });
}

const HOUR = 3600;

describe('oversight figures', () => {
  beforeAll(async () => {
    // Alice, careful: 3 approvals and a rejection, 60–240 s after the proposal waited, 30–60 s after first opening it.
    await decided({
      person: 'alice',
      decision: 'approve',
      createdSecondsAgo: 10 * HOUR,
      waitSeconds: 60,
      dwellSeconds: 30,
      channel: 'notification',
    });
    await decided({
      person: 'alice',
      decision: 'approve',
      createdSecondsAgo: 9 * HOUR,
      waitSeconds: 120,
      dwellSeconds: 40,
      channel: 'queue',
    });
    await decided({
      person: 'alice',
      decision: 'approve',
      createdSecondsAgo: 8 * HOUR,
      waitSeconds: 180,
      dwellSeconds: 50,
      channel: 'queue',
    });
    await decided({
      person: 'alice',
      decision: 'reject',
      createdSecondsAgo: 7 * HOUR,
      waitSeconds: 240,
      dwellSeconds: 60,
      channel: 'page',
    });
    // Bob, fast: 3 approvals, 10 s after waiting, 1–3 s after first opening; and one 8 days ago (outside the window).
    await decided({
      person: 'bob',
      decision: 'approve',
      createdSecondsAgo: 6 * HOUR,
      waitSeconds: 10,
      dwellSeconds: 1,
    });
    await decided({
      person: 'bob',
      decision: 'approve',
      createdSecondsAgo: 5 * HOUR,
      waitSeconds: 10,
      dwellSeconds: 2,
    });
    await decided({
      person: 'bob',
      decision: 'approve',
      createdSecondsAgo: 4 * HOUR,
      waitSeconds: 10,
      dwellSeconds: 3,
    });
    await decided({
      person: 'bob',
      decision: 'approve',
      createdSecondsAgo: 8 * 24 * HOUR,
      waitSeconds: 10,
      dwellSeconds: 1,
    });
    await ended('expired', 3 * HOUR);
    await ended('stale', 2 * HOUR);
    await ended('expired', 9 * 24 * HOUR);
  });

  it('computes per approver, per action and per channel what was worked out by hand', async () => {
    const figures = await oversightFigures(t.db, { userId: world.userId('dave'), tenantId: 'acme' }, 7, NOW);
    expect(figures).toMatchObject({
      days: 7,
      from: at(7 * 24 * HOUR).toISOString(),
      to: NOW.toISOString(),
      expired: 1,
      stale: 1,
    });
    expect(figures.settings).toEqual({ minDecisions: 20, approvalRatePercent: 98, medianDwellSeconds: 5 });
    const alice = figures.approvers.find((row) => row.name === 'Alice');
    // wait 60/120/180/240 s: p50 150 s, p95 180 + 0.85 × 60 = 231 s; dwell 30/40/50/60 s: p50 45 s, p10 30 + 0.3 × 10 =
    // 33 s.
    expect(alice).toEqual({
      userId: world.userId('alice'),
      name: 'Alice',
      decisions: 4,
      approvals: 3,
      approvalRate: 0.75,
      waitP50Ms: 150_000,
      waitP95Ms: 231_000,
      dwellP50Ms: 45_000,
      dwellP10Ms: 33_000,
      dwellMeasured: 4,
      rubberStamp: false,
    });
    const bob = figures.approvers.find((row) => row.name === 'Bob');
    // dwell 1/2/3 s: p50 2 s, p10 1 + 0.2 × 1 = 1.2 s. Not marked under the default 20 decisions.
    expect(bob).toEqual({
      userId: world.userId('bob'),
      name: 'Bob',
      decisions: 3,
      approvals: 3,
      approvalRate: 1,
      waitP50Ms: 10_000,
      waitP95Ms: 10_000,
      dwellP50Ms: 2_000,
      dwellP10Ms: 1_200,
      dwellMeasured: 3,
      rubberStamp: false,
    });
    expect(figures.approvers.map((row) => row.name)).toEqual(['Alice', 'Bob']);
    expect(figures.actions).toEqual([
      expect.objectContaining({ action: 'hold_stock', decisions: 7, approvals: 6, expired: 1, stale: 1 }),
    ]);
    expect(figures.channels.map((row) => [row.channel, row.decisions, row.waitP50Ms])).toEqual([
      ['notification', 1, 60_000],
      ['page', 1, 240_000],
      ['queue', 5, 10_000],
    ]);
  });

  it('marks a fast approver once the settings fit them', async () => {
    await updateOversightSettings(
      t.db,
      'acme',
      { type: 'system', id: 'test' },
      { minDecisions: 3, approvalRatePercent: 98, medianDwellSeconds: 5 },
    );
    const figures = await oversightFigures(t.db, { userId: world.userId('alice'), tenantId: 'acme' }, 7, NOW);
    expect(figures.approvers.map((row) => [row.name, row.rubberStamp])).toEqual([
      ['Alice', false],
      ['Bob', true],
    ]);
    await updateOversightSettings(
      t.db,
      'acme',
      { type: 'system', id: 'test' },
      { minDecisions: 20, approvalRatePercent: 98, medianDwellSeconds: 5 },
    );
  });

  it('answers a member of another tenant as an unknown tenant, and another tenant sees none of these', async () => {
    await expectApiError(oversightFigures(t.db, { userId: world.userId('erin'), tenantId: 'acme' }, 7, NOW), {
      status: 404,
      code: 'not_found',
    });
    const globex = await oversightFigures(t.db, { userId: world.userId('erin'), tenantId: 'globex' }, 7, NOW);
    expect(globex).toMatchObject({ approvers: [], actions: [], channels: [], expired: 0, stale: 0 });
  });

  it.each([['0'], ['91'], ['7.5'], ['-1'], ['seven'], ['']])('refuses days=%j with 422 invalid_days', async (value) => {
    await expectApiError(
      Promise.resolve().then(() => oversightDays(value)),
      { status: 422, code: 'invalid_days' },
    );
  });

  it('takes 7 days by default and up to 90', () => {
    expect(oversightDays(null)).toBe(7);
    expect(oversightDays('90')).toBe(90);
    expect(oversightDays('1')).toBe(1);
  });
});

describe('first views', () => {
  const viewsOf = async (proposalId: string) =>
    t.db.select().from(proposalViews).where(eq(proposalViews.proposalId, proposalId));

  it('records the first look once per person and proposal; later ones change nothing', async () => {
    const first = await recordView(t.db, {
      userId: world.userId('alice'),
      proposalId: template.id,
      channel: 'queue',
      at: at(100),
    });
    const again = await recordView(t.db, {
      userId: world.userId('alice'),
      proposalId: template.id,
      channel: 'notification',
      at: at(50),
    });
    expect([first, again]).toEqual([{ recorded: true }, { recorded: false }]);
    expect(await viewsOf(template.id)).toEqual([
      expect.objectContaining({ userId: world.userId('alice'), channel: 'queue', firstSeenAt: at(100) }),
    ]);
  });

  it('answers another tenant’s proposal, or an unknown one, with 404 and writes nothing', async () => {
    await expectApiError(
      recordView(t.db, { userId: world.userId('erin'), proposalId: template.id, channel: 'queue' }),
      { status: 404, code: 'not_found' },
    );
    await expectApiError(
      recordView(t.db, { userId: world.userId('bob'), proposalId: 'prp_00000000000000000000', channel: 'queue' }),
      { status: 404, code: 'not_found' },
    );
    expect((await viewsOf(template.id)).map((row) => row.userId)).toEqual([world.userId('alice')]);
  });
});

describe('the rubber-stamp alarm', () => {
  const alarmCount = async () => {
    await chainAllPending(t.db);
    const [events] = await t.db
      .select({ n: count() })
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, 'acme'), eq(auditEvents.type, 'oversight.rubber_stamp')));
    const [notices] = await t.db
      .select({ n: count() })
      .from(outbox)
      .where(and(eq(outbox.tenantId, 'acme'), eq(outbox.topic, 'oversight.rubber_stamp')));
    return { events: events?.n, notices: notices?.n };
  };

  it('stays silent while a setting is 0, fires once for the fast approver (twice run, even at once), never for the careful one', async () => {
    await updateOversightSettings(
      t.db,
      'acme',
      { type: 'system', id: 'test' },
      { minDecisions: 3, approvalRatePercent: 98, medianDwellSeconds: 0 },
    );
    expect(await raiseRubberStampAlarms(t.db, NOW)).toEqual({ raised: 0 });
    expect(await alarmCount()).toEqual({ events: 0, notices: 0 });

    await updateOversightSettings(
      t.db,
      'acme',
      { type: 'system', id: 'test' },
      { minDecisions: 3, approvalRatePercent: 98, medianDwellSeconds: 5 },
    );
    const runs = await Promise.all([raiseRubberStampAlarms(t.db, NOW), raiseRubberStampAlarms(t.db, NOW)]);
    expect(runs.reduce((sum, run) => sum + run.raised, 0)).toBe(1);
    expect(await raiseRubberStampAlarms(t.db, new Date(NOW.getTime() + HOUR * 1000))).toEqual({ raised: 0 });
    expect(await alarmCount()).toEqual({ events: 1, notices: 1 });
    const alarms = await t.db.select().from(oversightAlarms);
    expect(alarms).toEqual([
      expect.objectContaining({
        tenantId: 'acme',
        userId: world.userId('bob'),
        windowStart: new Date('2026-06-08T00:00:00.000Z'),
        decisions: 3,
        medianDwellMs: 2_000,
      }),
    ]);
    const [notice] = await t.db
      .select({ body: outbox.body })
      .from(outbox)
      .where(eq(outbox.topic, 'oversight.rubber_stamp'));
    expect(notice?.body).toMatchObject({
      approver: 'Bob',
      decisions: 3,
      approvalPercent: 100,
      medianDwellMs: 2_000,
      days: 7,
    });
  });
});
