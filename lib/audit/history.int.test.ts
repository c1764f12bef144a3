import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentKeys, auditHeads } from '@/db/schema';
import { decide } from '@/lib/decisions/decide';
import { appendAudit } from '@/lib/events/append';
import { commandKeys } from '@/lib/signing/keys';
import { setupTestDatabase } from '@/test/db';
import { BULK_PERSON, insertBulkAuditEvents } from '@/test/fixtures/audit';
import { submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { type SeededWorld, seedWorld } from '@/test/world';
import { actorResolver } from './actors';
import { auditExportStream } from './export';
import { decisionsPage, eventsPage } from './history';
import { type HistoryFilters, parseHistoryParams } from './history-filters';
import { exportHref, type HistoryView, historySearch } from './history-view';
import { type ChainRow, chainVerifier } from './verify';

const t = setupTestDatabase();
const systems = setupDemoSystems();
let world: SeededWorld;
const ids: Record<string, string> = {};

beforeAll(async () => {
  world = await seedWorld(t.db);
  const acme = await world.agent('acme');
  ids.acmeKey = acme.keyId;
  const globex = await world.agent('globex');
  const submit = async (name: string, agent: typeof acme, body: Record<string, unknown>) => {
    const { proposal } = await submitAs(t.db, systems.client, agent, {
      requestId: `req_hist_${name}`,
      contractVersion: 1,
      ...body,
    });
    ids[name] = proposal.id;
    return proposal;
  };
  const hold = await submit('hold', acme, { action: 'hold_stock', args: { sku: 'filter-blue', quantity: 1 } });
  const refund = await submit('refund', acme, {
    action: 'issue_refund',
    args: { orderId: 'ord_1842', amountMinor: 4999, currency: 'USD', reason: 'Customer requested a full refund' },
  });
  await submit('pending', acme, { action: 'hold_stock', args: { sku: 'filter-gray', quantity: 1 } });
  const green = await submit('globex', globex, { action: 'hold_stock', args: { sku: 'filter-green', quantity: 1 } });
  await decide(t.db, systems.client, {
    userId: world.userId('alice'),
    proposalId: hold.id,
    request: { decision: 'approve', payloadHash: hold.payloadHash },
  });
  await decide(t.db, systems.client, {
    userId: world.userId('bob'),
    proposalId: refund.id,
    request: { decision: 'reject', payloadHash: refund.payloadHash, reason: 'Duplicate of an earlier refund' },
  });
  await decide(t.db, systems.client, {
    userId: world.userId('erin'),
    proposalId: green.id,
    request: { decision: 'approve', payloadHash: green.payloadHash },
  });
  // A value a spreadsheet would run as a formula, and one with a newline and quotes.
  await appendAudit(t.db, {
    tenantId: 'acme',
    type: 'auth.sign_in_locked',
    actor: { type: 'system', id: '=HYPERLINK("x")' },
    reasonCode: 'line\nbreak "q"',
    data: { note: '+1, @x' },
  });
  await insertBulkAuditEvents(t.owner, 'paging', 237, { proposals: true });
}, 120_000);

/** Every row of a view, page after page by its cursor. */
async function everyPage<Row>(
  read: (cursor?: string) => Promise<{ items: Row[]; nextCursor: string | null }>,
): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const page = await read(cursor);
    rows.push(...page.items);
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return rows;
}

const allEvents = (tenantId: string, filters: HistoryFilters) =>
  everyPage((cursor) => eventsPage(t.db, tenantId, filters, cursor));
const allDecisions = (tenantId: string, filters: HistoryFilters) =>
  everyPage((cursor) => decisionsPage(t.db, tenantId, filters, cursor));

async function readText(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

describe('the Decisions view', () => {
  it('has one row per decided or ended proposal of the tenant, with names, words and the reason', async () => {
    const rows = await allDecisions('acme', {});
    expect(rows.map((row) => row.id).sort()).toEqual([ids.hold, ids.refund].sort());
    const refund = rows.find((row) => row.id === ids.refund)!;
    expect(refund).toMatchObject({
      summary: 'Refund 49.99 USD on order ord_1842',
      action: 'issue_refund',
      agent: 'acme-support-bot',
      status: 'rejected',
      reason: 'Duplicate of an earlier refund',
      deciders: [{ decision: 'reject' }],
    });
    // The agent as everywhere else, with its key's id for the hover.
    expect(refund).toMatchObject({ agentLabel: 'agent acme-support-bot', agentKeyId: ids.acmeKey });
    expect(refund.deciders[0]!.name).toMatch(/bob/i);
    const hold = rows.find((row) => row.id === ids.hold)!;
    expect(hold.deciders[0]!.name).toMatch(/alice/i);
    expect(hold.payloadHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(hold.timeToDecisionMs).toBeGreaterThanOrEqual(0);
  });

  it('never shows another tenant’s proposals', async () => {
    expect((await allDecisions('globex', {})).map((row) => row.id)).toEqual([ids.globex]);
    expect(await allDecisions('acme', { person: world.userId('erin') })).toEqual([]);
    expect(await allDecisions('acme', { q: ids.globex })).toEqual([]);
  });

  it.each<[string, () => HistoryFilters, () => string[]]>([
    ['action', () => ({ action: 'issue_refund' }), () => [ids.refund!]],
    ['person', () => ({ person: world.userId('alice') }), () => [ids.hold!]],
    ['agent', () => ({ agent: 'acme-support-bot' }), () => [ids.hold!, ids.refund!]],
    ['unknown agent', () => ({ agent: 'nobody' }), () => []],
    ['outcome rejected', () => ({ outcome: 'rejected' }), () => [ids.refund!]],
    ['outcome approved', () => ({ outcome: 'approved' }), () => [ids.hold!]],
    ['a proposal id', () => ({ q: ids.hold! }), () => [ids.hold!]],
    ['text in the reason', () => ({ q: 'duplicate' }), () => [ids.refund!]],
    ['text in the args', () => ({ q: 'ord_1842' }), () => [ids.refund!]],
    ['a LIKE wildcard taken literally', () => ({ q: '%' }), () => []],
    [
      'dates that include today',
      () => ({ since: new Date(Date.now() - 86_400_000), until: new Date(Date.now() + 86_400_000) }),
      () => [ids.hold!, ids.refund!],
    ],
    ['dates before today', () => ({ until: new Date(Date.now() - 86_400_000) }), () => []],
  ])('the %s filter narrows', async (_what, filters, expected) => {
    expect((await allDecisions('acme', filters())).map((row) => row.id).sort()).toEqual(expected().sort());
  });

  it('pages by keyset without duplicates or gaps', async () => {
    const rows = await allDecisions('paging', {});
    expect(rows.length).toBe(25);
    expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
    const times = rows.map((row) => row.at);
    expect([...times].sort().reverse()).toEqual(times);
  });
});

describe('the Events view', () => {
  it('names actors and words events; another tenant’s events never appear', async () => {
    const acme = await allEvents('acme', {});
    expect(acme.every((event) => event.tenantId === 'acme')).toBe(true);
    expect(acme.some((event) => event.proposalId === ids.globex)).toBe(false);
    const created = acme.find((event) => event.type === 'proposal.created' && event.proposalId === ids.hold)!;
    expect(created.actorName).toBe('acme-support-bot');
    expect(created.text).toMatch(/^a proposal passed the gates/);
    const rejected = acme.find((event) => event.type === 'proposal.rejected')!;
    expect(rejected.actorName).toMatch(/bob/i);
    expect(acme.find((event) => event.type === 'auth.sign_in_locked')!.actorName).toBe('system');
    // In words: people by name, agents as agents, Countersign's own jobs as Countersign; events by their title.
    expect(created).toMatchObject({ actorLabel: 'agent acme-support-bot', title: 'Proposed' });
    expect(rejected).toMatchObject({ actorLabel: rejected.actorName, title: 'Rejected' });
    expect(rejected.actorLabel).not.toMatch(/^usr_|^person /);
    expect(acme.find((event) => event.type === 'auth.sign_in_locked')!.actorLabel).toBe('Countersign');
    expect((await allEvents('globex', {})).every((event) => event.tenantId === 'globex')).toBe(true);
    expect(await allEvents('acme', { q: ids.globex })).toEqual([]);
  });

  it.each<
    [string, () => HistoryFilters, (event: { type: string; proposalId: string | null; actorId: string }) => boolean]
  >([
    ['type', () => ({ type: 'proposal.rejected' }), (e) => e.type === 'proposal.rejected'],
    ['person', () => ({ person: world.userId('alice') }), (e) => e.actorId === world.userId('alice')],
    ['action', () => ({ action: 'issue_refund' }), (e) => e.proposalId === ids.refund],
    ['outcome', () => ({ outcome: 'approved' }), (e) => e.proposalId === ids.hold],
    ['proposal id', () => ({ q: ids.pending! }), (e) => e.proposalId === ids.pending],
    ['text', () => ({ q: 'sign_in_locked' }), (e) => e.type === 'auth.sign_in_locked'],
  ])('the %s filter narrows to exactly the matching events', async (_what, filters, matches) => {
    const all = await allEvents('acme', {});
    const expected = all.filter(matches).map((event) => event.seq);
    expect(expected.length).toBeGreaterThan(0);
    expect((await allEvents('acme', filters())).map((event) => event.seq)).toEqual(expected);
  });

  it('filters by dates as instants and pages 237 events by keyset without duplicates or gaps', async () => {
    const events = await allEvents('paging', {});
    expect(events.map((event) => event.seq)).toEqual(Array.from({ length: 237 }, (_, i) => 237 - i));
    // Bulk events are one a minute from 2030-01-01 00:00 UTC: seq 60…119 fall in the second hour.
    const hour = await allEvents('paging', {
      since: new Date('2030-01-01T01:00:00Z'),
      until: new Date('2030-01-01T02:00:00Z'),
    });
    expect(hour.map((event) => event.seq)).toEqual(Array.from({ length: 60 }, (_, i) => 119 - i));
    const person = await allEvents('paging', { person: BULK_PERSON });
    expect(person.length).toBe(23);
  });
});

describe('actor names', () => {
  it('are looked up in one query inside the tenant: another tenant’s person or key is never named, the recorded name or the id stands in', async () => {
    const [globexKey] = await t.db.select({ id: agentKeys.id }).from(agentKeys).where(eq(agentKeys.tenantId, 'globex'));
    const rows = [
      { actorType: 'user', actorId: world.userId('alice') },
      { actorType: 'agent', actorId: (await world.agent('acme')).keyId },
      { actorType: 'user', actorId: world.userId('erin') },
      { actorType: 'user', actorId: world.userId('erin'), actorName: 'Erin (as recorded)' },
      { actorType: 'agent', actorId: globexKey!.id },
      { actorType: 'system', actorId: 'reconciliation' },
    ];
    const actorOf = await actorResolver(t.db, 'acme', rows);
    expect(rows.map((row) => actorOf(row).label)).toEqual([
      expect.stringMatching(/^alice$/i),
      'agent acme-support-bot',
      `person ${world.userId('erin')}`,
      'Erin (as recorded)',
      `agent ${globexKey!.id}`,
      'Countersign',
    ]);
    expect(actorOf(rows[0]!)).toMatchObject({ id: world.userId('alice'), type: 'user' });
    expect(actorOf(rows[5]!)).toMatchObject({ id: 'reconciliation', name: 'system' });
  });
});

/** The events of a JSON Lines export: every line but its signed end line (lib/audit/export-verify.ts). */
const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ChainRow)
    .filter((line) => !('format' in line));

describe('the export', () => {
  it('JSONL re-verifies with chainVerifier against the head', async () => {
    const text = await readText(
      auditExportStream(t.db, 'acme', { filters: {}, of: 'events' }, 'jsonl', await commandKeys(), 7),
    );
    const rows = jsonLines(text);
    const [head] = await t.db.select().from(auditHeads).where(eq(auditHeads.tenantId, 'acme'));
    expect(rows.length).toBe(head!.seq);
    const verifier = chainVerifier('acme');
    verifier.push(rows);
    expect(verifier.finish({ seq: head!.seq, hash: head!.hash })).toMatchObject({
      ok: true,
      through: { seq: head!.seq },
    });
    // A changed value is caught.
    const forged = rows.map((row) => (row.type === 'proposal.rejected' ? { ...row, reasonCode: 'approved' } : row));
    const check = chainVerifier('acme');
    check.push(forged);
    expect(check.finish()).toMatchObject({ ok: false, reason: 'hash_mismatch' });
  });

  it('CSV is RFC 4180 with every hashed field, and formula-like cells are defused', async () => {
    const text = await readText(
      auditExportStream(
        t.db,
        'acme',
        { filters: { type: 'auth.sign_in_locked' }, of: 'events' },
        'csv',
        await commandKeys(),
      ),
    );
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(
      'tenantId,seq,type,actorType,actorId,actorName,proposalId,payloadHash,reasonCode,contractVersion,data,occurredAt,prevHash,hash,actorLabel',
    );
    expect(text).toContain(
      `,system,"'=HYPERLINK(""x"")","'=HYPERLINK(""x"")",,,"line\nbreak ""q""",,"{""note"":""+1, @x""}",`,
    );
    expect(text.endsWith('\r\n')).toBe(true);
  });

  it('CSV starts with a UTF-8 byte order mark, so a spreadsheet keeps non-ASCII names; JSON Lines has none', async () => {
    await appendAudit(t.db, {
      tenantId: 'acme',
      type: 'auth.email_verified',
      actor: { type: 'user', id: 'usr_bom', name: 'Zoë Ångström 李' },
    });
    const bytes = async (format: 'csv' | 'jsonl') =>
      new Uint8Array(
        await new Response(
          auditExportStream(
            t.db,
            'acme',
            { filters: { type: 'auth.email_verified' }, of: 'events' },
            format,
            await commandKeys(),
          ),
        ).arrayBuffer(),
      );
    const csv = await bytes('csv');
    expect([...csv.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(csv);
    expect(text.startsWith('\uFEFFtenantId,seq,type,')).toBe(true);
    expect(text).toContain(',auth.email_verified,user,usr_bom,Zoë Ångström 李,');
    const jsonl = await bytes('jsonl');
    expect(jsonl[0]).toBe('{'.charCodeAt(0));
    expect(new TextDecoder().decode(jsonl)).toContain('"actorName":"Zoë Ångström 李"');
  });

  it('exports only the filtered events of the tenant, oldest first', async () => {
    const text = await readText(
      auditExportStream(
        t.db,
        'acme',
        { filters: { action: 'hold_stock' }, of: 'events' },
        'jsonl',
        await commandKeys(),
      ),
    );
    const rows = jsonLines(text);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.tenantId === 'acme' && [ids.hold, ids.pending].includes(row.proposalId!))).toBe(
      true,
    );
    expect(rows.map((row) => row.seq)).toEqual([...rows.map((row) => row.seq)].sort((a, b) => a - b));
  });

  /** The export the History page's button downloads for `view`: its link, parsed as the route parses it. */
  async function exportOfView(view: HistoryView, format: 'csv' | 'jsonl' = 'jsonl') {
    const parsed = parseHistoryParams(new URL(exportHref(view, format), 'http://x').searchParams, 'export');
    if (!parsed.ok) throw new Error(parsed.messages.join(' '));
    return readText(
      auditExportStream(
        t.db,
        'acme',
        { filters: parsed.filters, of: parsed.exportOf ?? 'events' },
        format,
        await commandKeys(),
      ),
    );
  }

  it.each<[string, () => HistoryView]>([
    ['words of the refund reason in its arguments', () => ({ tab: 'decisions', q: 'full refund' })],
    ['words of the rejection reason', () => ({ tab: 'decisions', q: 'Duplicate' })],
    ['the agent name', () => ({ tab: 'decisions', q: 'support' })],
    ['a proposal id', () => ({ tab: 'decisions', q: ids.refund! })],
    ['an event type in the Events view', () => ({ tab: 'events', q: 'rejected' })],
    ['a person in the Events view', () => ({ tab: 'events', person: world.userId('bob') })],
  ])("with History's filter set to %s, exports the rows the screen shows", async (_name, viewOf) => {
    const view = viewOf();
    const parsed = parseHistoryParams(new URLSearchParams(historySearch(view)), 'page');
    if (!parsed.ok) throw new Error(parsed.messages.join(' '));
    const rows = jsonLines(await exportOfView(view));
    if (view.tab === 'decisions') {
      const shown = (await allDecisions('acme', parsed.filters)).map((row) => row.id);
      expect(shown.length).toBeGreaterThan(0);
      expect([...new Set(rows.map((row) => row.proposalId))].sort()).toEqual([...shown].sort());
      expect(rows.some((row) => row.type === 'proposal.created')).toBe(true);
    } else {
      const shown = (await allEvents('acme', parsed.filters)).map((row) => row.seq);
      expect(shown.length).toBeGreaterThan(0);
      expect(rows.map((row) => row.seq)).toEqual([...shown].reverse());
    }
  });

  it('without a tab, the export is the whole chain (what audit:verify --export reads)', async () => {
    const parsed = parseHistoryParams(new URLSearchParams('format=jsonl'), 'export');
    expect(parsed).toMatchObject({ ok: true, exportOf: 'events' });
    const [head] = await t.db.select().from(auditHeads).where(eq(auditHeads.tenantId, 'acme'));
    expect(
      jsonLines(
        await readText(auditExportStream(t.db, 'acme', { filters: {}, of: 'events' }, 'jsonl', await commandKeys())),
      ).length,
    ).toBe(head!.seq);
  });

  it.each(['csv', 'jsonl'] as const)(
    '%s carries the name the event recorded beside the actor id, and the actor in words last',
    async (format) => {
      const text = await exportOfView({ tab: 'decisions', q: 'Duplicate' }, format);
      if (format === 'csv') {
        const rejected = text.split('\r\n').find((line) => line.includes(',proposal.rejected,'))!;
        expect(rejected).toContain(`,proposal.rejected,user,${world.userId('bob')},Bob,${ids.refund},`);
        expect(rejected.endsWith(',Bob')).toBe(true);
        expect(
          text
            .split('\r\n')
            .find((line) => line.includes(',proposal.created,'))!
            .endsWith(',agent acme-support-bot'),
        ).toBe(true);
      } else {
        const rows = jsonLines(text) as (ChainRow & { actorLabel: string })[];
        expect(rows.find((row) => row.type === 'proposal.rejected')).toMatchObject({
          actorId: world.userId('bob'),
          actorName: 'Bob',
          actorLabel: 'Bob',
        });
        expect(rows.find((row) => row.type === 'proposal.created')).toMatchObject({
          actorType: 'agent',
          actorLabel: 'agent acme-support-bot',
        });
      }
    },
  );
});
