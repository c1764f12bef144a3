import fs from 'node:fs';
import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, tenants } from '@/db/schema';
import { chainAllPending } from '@/lib/events/chainer';
import { payloadHash } from '@/lib/payload-hash';
import { setupTestDatabase } from '@/test/db';
import { databaseErrorText } from '@/test/queries';
import type { Definition } from './document';
import { definitionListLines, definitionPlanLines, planDefinition } from './plan';
import { currentDefinitions, definitionHistory, publishDefinition } from './store';

/** Publishing, reading and planning definitions on both drivers; the CLI around them: cli.postgres.int.test.ts. */
const t = setupTestDatabase();
const read = (name: string) => fs.readFileSync(`demo/actions/${name}.json`, 'utf8');
const documentOf = (name: string) => JSON.parse(read(name)) as Definition;
const by = { type: 'system' as const, id: 'cli' };

beforeAll(async () => {
  await t.db.insert(tenants).values([
    { id: 'acme', name: 'Acme' },
    { id: 'globex', name: 'Globex' },
  ]);
});

describe('publishDefinition', () => {
  it('publishes v1 with its action.published event, in the tenant only', async () => {
    const document = documentOf('hold_stock');
    const result = await publishDefinition(t.db, { tenantId: 'acme', document, note: 'First version', by });
    expect(result).toEqual({ published: true, name: 'hold_stock', version: 1, documentHash: payloadHash(document) });

    await chainAllPending(t.db);
    const events = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, 'acme'), eq(auditEvents.type, 'action.published')));
    expect(events).toEqual([
      expect.objectContaining({
        actorType: 'system',
        actorId: 'cli',
        reasonCode: 'v1',
        data: { action: 'hold_stock', version: 1, documentHash: payloadHash(document), note: 'First version' },
      }),
    ]);
    expect(await currentDefinitions(t.db, 'globex')).toEqual([]);
  });

  it('refuses the current document unchanged, whatever its key order', async () => {
    const reordered = Object.fromEntries(Object.entries(documentOf('hold_stock')).reverse()) as Definition;
    expect(await publishDefinition(t.db, { tenantId: 'acme', document: reordered, note: 'Again', by })).toEqual({
      published: false,
      reason: 'unchanged',
      name: 'hold_stock',
      version: 1,
    });
  });

  it('refuses an invalid document and a blank note, writing nothing', async () => {
    const broken = { ...documentOf('hold_stock'), rules: [{ code: 'x', require: 'args.quantity <', message: 'm' }] };
    expect(await publishDefinition(t.db, { tenantId: 'acme', document: broken, note: 'Broken', by })).toMatchObject({
      published: false,
      reason: 'invalid',
      problems: [{ path: 'rules.0.require', message: expect.stringContaining('does not parse') }],
    });
    const changed = { ...documentOf('hold_stock'), title: 'Hold stock for an order' };
    expect(await publishDefinition(t.db, { tenantId: 'acme', document: changed, note: '  ', by })).toMatchObject({
      published: false,
      reason: 'invalid',
      problems: [{ path: 'note' }],
    });
    expect((await definitionHistory(t.db, 'acme', 'hold_stock')).map((row) => row.version)).toEqual([1]);
  });

  it('publishes a change as the next version; the newest is current', async () => {
    const changed = { ...documentOf('hold_stock'), title: 'Hold stock for an order' };
    expect(
      await publishDefinition(t.db, { tenantId: 'acme', document: changed, note: 'Clearer title', by }),
    ).toMatchObject({
      published: true,
      version: 2,
    });
    await publishDefinition(t.db, { tenantId: 'acme', document: documentOf('issue_refund'), note: 'Refunds', by });
    const current = await currentDefinitions(t.db, 'acme');
    expect(current.map(({ name, version, document }) => [name, version, document.title])).toEqual([
      ['hold_stock', 2, 'Hold stock for an order'],
      ['issue_refund', 1, 'Issue refund'],
    ]);
    expect((await definitionHistory(t.db, 'acme', 'hold_stock')).map((row) => [row.version, row.note])).toEqual([
      [2, 'Clearer title'],
      [1, 'First version'],
    ]);
  });

  it.each([
    ['UPDATE', sql`update action_definitions set note = 'rewritten' where tenant_id = 'acme'`],
    ['DELETE', sql`delete from action_definitions where tenant_id = 'acme' and version = 1`],
    ['TRUNCATE', sql`truncate action_definitions`],
  ])('keeps every version as published: the database refuses %s', async (operation, statement) => {
    // The trigger holds even for the table's owner; the application's role (PostgreSQL) is refused
    // before the trigger runs, for want of the privilege (migration 0024).
    const asOwner = await t.owner.execute(statement).catch((caught: unknown) => caught);
    expect(databaseErrorText(asOwner)).toContain(`action_definitions is insert-only: ${operation} refused`);
    const asApplication = await t.db.execute(statement).catch((caught: unknown) => caught);
    expect(databaseErrorText(asApplication)).toMatch(
      new RegExp(
        `action_definitions is insert-only: ${operation} refused|permission denied for table action_definitions`,
      ),
    );
    expect((await definitionHistory(t.db, 'acme', 'hold_stock')).map((row) => row.note)).toEqual([
      'Clearer title',
      'First version',
    ]);
  });
});

describe('planning against the current version', () => {
  it('says what changes and names what breaks agents', async () => {
    const document = documentOf('issue_refund');
    const args = document.contracts[0]!.args as { properties: Record<string, object>; required: string[] };
    args.properties.channel = { type: 'string', enum: ['web', 'phone'] };
    args.required.push('channel');
    const plan = await planDefinition(t.db, 'acme', JSON.stringify(document));
    expect(definitionPlanLines(plan).filter((line) => !line.startsWith('Warning'))).toEqual([
      'issue_refund v1 → v2:',
      "  Contract v1's arguments change.",
      'Breaking for agents (1):',
      '  contract v1: the field "channel" was made required',
      'No proposals of issue_refund to replay yet.',
    ]);
  });

  it('says a new definition is new, an unchanged one makes no version, and lists problems', async () => {
    const unchanged = await planDefinition(t.db, 'acme', read('issue_refund'));
    expect(definitionPlanLines(unchanged)[0]).toBe(
      'issue_refund: unchanged from v1; publishing it would make no new version.',
    );
    expect(definitionPlanLines(await planDefinition(t.db, 'globex', read('issue_refund')))[0]).toBe(
      'issue_refund: new, publishing it makes v1.',
    );
    expect(definitionPlanLines(await planDefinition(t.db, 'acme', '{"name": "x"}')).slice(0, 2)).toEqual([
      'The definition has 8 problem(s):',
      '  title: "title" is required: expected string.',
    ]);
  });

  it('lists the current version of each', async () => {
    expect(await definitionListLines(t.db, 'acme')).toEqual([
      expect.stringMatching(
        /^hold_stock v2 {2}Hold stock for an order {2}\(contracts v1 current, v2 shadow; 1 rule\(s\)\)\n {4}published \S+ by cli: Clearer title$/,
      ),
      expect.stringMatching(/^issue_refund v1 {2}Issue refund {2}\(contracts v1 current; 3 rule\(s\)\)/),
    ]);
    expect(await definitionListLines(t.db, 'globex')).toEqual(['No action definitions in globex.']);
  });
});
