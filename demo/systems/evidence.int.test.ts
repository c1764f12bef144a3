import { describe, expect, it } from 'vitest';
import { startSystemsOfRecord } from './server';
import { call, type ErrorBody, setupTestService, TEST_CREDENTIALS } from './testing';

/** `POST /__evidence` (test mode only): evidence records added from outside, kept until /__reset. */

const service = setupTestService();

const record = (overrides: Record<string, unknown> = {}) => ({
  id: 'ticket_added_1',
  tenant: 'acme',
  kind: 'support_ticket',
  text: 'Please refund.',
  ...overrides,
});

const add = (body: unknown) => call<ErrorBody>(service.url, 'POST', '/__evidence', { body });

const read = (id: string) => call(service.url, 'GET', `/evidence/${encodeURIComponent(id)}`);

describe('POST /__evidence', () => {
  it('adds a record that GET /evidence/:id serves, with the text exactly as sent', async () => {
    const text = `${'\n'.repeat(19_000)}${'é\u200b👩\u200d💻'.repeat(200)}`.slice(0, 20_000);
    const added = await add(record({ text }));
    expect(added.status).toBe(201);
    expect(added.json).toStrictEqual(record({ text }));
    expect(await read('ticket_added_1')).toMatchObject({ status: 200, json: record({ text }) });
  });

  it('takes 20,000 characters sent as \\u escapes (a body far above the usual limit)', async () => {
    const text = '\u200b'.repeat(20_000);
    const raw = JSON.stringify(record({ text })).replaceAll('\u200b', '\\u200b');
    expect(raw.length).toBeGreaterThan(120_000);
    const added = await call(service.url, 'POST', '/__evidence', { raw });
    expect(added.status).toBe(201);
    expect((await read('ticket_added_1')).json).toMatchObject({ text });
  });

  it('is gone after POST /__reset; the seeded evidence stays', async () => {
    expect((await add(record())).status).toBe(201);
    expect((await call(service.url, 'POST', '/__reset')).status).toBe(200);
    expect((await read('ticket_added_1')).status).toBe(404);
    expect((await read('ticket_message_73')).status).toBe(200);
    expect((await add(record())).status).toBe(201);
  });

  it.each([
    ['a seeded id', 'ticket_message_74'],
    ['an id added before', 'ticket_added_1'],
  ])('refuses %s with 409 and keeps the record it had', async (_name, id) => {
    expect((await add(record())).status).toBe(201);
    const before = (await read(id)).json;
    const reply = await add(record({ id, tenant: 'globex', text: 'replaced' }));
    expect(reply.status).toBe(409);
    expect(reply.json.error.code).toBe('evidence_exists');
    expect((await read(id)).json).toStrictEqual(before);
  });

  it.each([
    ['an unknown field', { ...record(), note: 'x' }, 'body: Unrecognized key: "note"'],
    ['no id', { tenant: 'acme', kind: 'support_ticket', text: 'x' }, 'id:'],
    ['no tenant', { id: 'ticket_added_1', kind: 'support_ticket', text: 'x' }, 'tenant:'],
    ['no kind', { id: 'ticket_added_1', tenant: 'acme', text: 'x' }, 'kind:'],
    ['no text', { id: 'ticket_added_1', tenant: 'acme', kind: 'support_ticket' }, 'text:'],
    ['an empty id', record({ id: '' }), 'id:'],
    ['an id of 129 characters', record({ id: 'a'.repeat(129) }), 'id:'],
    ['an id with a slash', record({ id: 'ticket/1' }), 'id:'],
    ['an id with a space', record({ id: 'ticket 1' }), 'id:'],
    ['a number for an id', record({ id: 7 }), 'id:'],
    ['an upper-case tenant', record({ tenant: 'Acme' }), 'tenant:'],
    ['a tenant of 65 characters', record({ tenant: 'a'.repeat(65) }), 'tenant:'],
    ['a kind with a space', record({ kind: 'support ticket' }), 'kind:'],
    ['a kind of 65 characters', record({ kind: 'a'.repeat(65) }), 'kind:'],
    ['a text of 20,001 characters', record({ text: 'a'.repeat(20_001) }), 'text:'],
    ['a text that is not a string', record({ text: ['a'] }), 'text:'],
    ['an array', [record()], 'body:'],
    ['null', null, 'body:'],
  ])('refuses %s with 400 naming the field, and adds nothing', async (_name, body, names) => {
    const reply = await add(body);
    expect(reply.status).toBe(400);
    expect(reply.json.error.code).toBe('invalid_request');
    expect(reply.json.error.message).toContain(names);
    expect((await read('ticket_added_1')).status).toBe(404);
  });

  it.each([
    ['not JSON', { raw: '{"id":', contentType: 'application/json' }, 400, 'invalid_json'],
    ['not sent as JSON', { raw: JSON.stringify(record()), contentType: 'text/plain' }, 415, 'unsupported_media_type'],
    [
      'larger than the evidence body limit',
      { raw: JSON.stringify(record({ text: 'a'.repeat(130_000) })) },
      413,
      'too_large',
    ],
  ])('refuses a body %s and adds nothing', async (_name, options, status, code) => {
    const reply = await call<ErrorBody>(service.url, 'POST', '/__evidence', options);
    expect(reply.status).toBe(status);
    expect(reply.json.error.code).toBe(code);
    expect((await read('ticket_added_1')).status).toBe(404);
  });

  it.each(['GET', 'PUT', 'DELETE'])('%s /__evidence is 405', async (method) => {
    const reply = await call(service.url, method, '/__evidence');
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('POST');
  });
});

describe('outside test mode', () => {
  it('POST /__evidence is 404 and adds nothing', async () => {
    const plain = await startSystemsOfRecord({ port: 0, credentials: TEST_CREDENTIALS });
    try {
      const reply = await call<ErrorBody>(plain.url, 'POST', '/__evidence', { body: record() });
      expect(reply.status).toBe(404);
      expect(reply.json.error.code).toBe('not_found');
      expect((await call(plain.url, 'GET', '/evidence/ticket_added_1')).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
