import { expect, test } from '@playwright/test';
import { agentKey, apiSession, proposeHold } from './support';

/**
 * Every operator mutation reads its body the same way (lib/http/operator-route.ts): malformed
 * bodies are 400/415 with their own code, a body that fails the route's schema is 422 with
 * `issues` in intake's shape, and nothing about the proposal changes.
 */
const VERBS = [
  ['decisions', 'invalid_decision'],
  ['revisions', 'invalid_revision'],
  ['extend', 'invalid_extension'],
  ['repropose-request', 'invalid_repropose_request'],
  ['recheck', 'invalid_recheck'],
] as const;

type Problem = {
  error: {
    kind: string;
    code: string;
    issues?: { field: string; code: string; expected: string; received: string; message: string }[];
  };
};

const CASES: {
  label: string;
  body: string;
  type?: string;
  status: number;
  kind: string;
  code?: string;
  issue?: { field: string; code: string };
}[] = [
  { label: 'malformed JSON', body: '{"decision": ', status: 400, kind: 'malformed', code: 'invalid_json' },
  { label: 'a duplicate key', body: '{"args": {}, "args": {}}', status: 400, kind: 'malformed', code: 'duplicate_key' },
  {
    label: 'another content type',
    body: '{}',
    type: 'text/plain',
    status: 415,
    kind: 'malformed',
    code: 'unsupported_media_type',
  },
  {
    label: 'an unknown field',
    body: '{"approvedBy": "carol"}',
    status: 422,
    kind: 'schema',
    issue: { field: 'approvedBy', code: 'unknown_field' },
  },
  {
    label: 'a wrong type',
    body: '[1, 2]',
    status: 422,
    kind: 'schema',
    issue: { field: '(body)', code: 'invalid_type' },
  },
];

test('every operator mutation answers a bad body the same way', async ({ baseURL, request }) => {
  const proposal = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
  const alice = await apiSession(baseURL!, 'alice@acme.test');
  for (const [verb, schemaCode] of VERBS) {
    for (const each of CASES) {
      const response = await alice.post(`/api/v1/proposals/${proposal.id}/${verb}`, {
        headers: { origin: baseURL!, 'content-type': each.type ?? 'application/json' },
        data: Buffer.from(each.body),
      });
      const what = `${verb}: ${each.label}`;
      expect(response.status(), what).toBe(each.status);
      const problem = (await response.json()) as Problem;
      expect(problem.error.kind, what).toBe(each.kind);
      expect(problem.error.code, what).toBe(each.code ?? schemaCode);
      if (each.issue) {
        expect(problem.error.issues, what).toContainEqual(expect.objectContaining(each.issue));
        for (const issue of problem.error.issues ?? []) {
          expect(Object.keys(issue).sort(), what).toEqual(['code', 'expected', 'field', 'message', 'received']);
        }
      }
    }
  }
  const after = (await (await alice.get(`/api/v1/proposals/${proposal.id}`)).json()) as {
    status: string;
    decisions: unknown[];
  };
  expect(after).toMatchObject({ status: 'pending_approval', decisions: [] });
  await alice.dispose();
});

test('revisions name the field that is wrong', async ({ baseURL, request }) => {
  const proposal = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
  const alice = await apiSession(baseURL!, 'alice@acme.test');
  const response = await alice.post(`/api/v1/proposals/${proposal.id}/revisions`, {
    headers: { origin: baseURL!, 'content-type': 'application/json' },
    data: { args: ['quantity', 2], reason: 'Two were asked for' },
  });
  expect(response.status()).toBe(422);
  const problem = (await response.json()) as Problem;
  expect(problem.error).toMatchObject({ kind: 'schema', code: 'invalid_revision' });
  expect(problem.error.issues).toEqual([
    expect.objectContaining({ field: 'args', code: 'invalid_type', expected: 'record', received: 'array of 2 items' }),
  ]);
  await alice.dispose();
});

test('the proposal API says what the operator may do, as the page does', async ({ baseURL, request }) => {
  const proposal = await proposeHold(request, 'acme', { sku: 'filter-blue', quantity: 1 });
  const alice = await apiSession(baseURL!, 'alice@acme.test');
  const dave = await apiSession(baseURL!, 'dave@acme.test');
  const rights = async (api: typeof alice) =>
    ((await (await api.get(`/api/v1/proposals/${proposal.id}`)).json()) as { viewer?: Record<string, unknown> }).viewer;
  expect(await rights(alice)).toMatchObject({
    role: 'approver',
    mayDecide: true,
    canApprove: true,
    canReject: true,
    canExtend: true,
    canEdit: true,
  });
  expect(await rights(dave)).toMatchObject({
    role: 'viewer',
    mayDecide: false,
    canApprove: false,
    canReject: false,
    canExtend: false,
    canEdit: false,
  });
  const asAgent = await request.get(`/api/v1/proposals/${proposal.id}`, {
    headers: { authorization: `Bearer ${agentKey('acme')}` },
  });
  expect(await asAgent.json()).not.toHaveProperty('viewer');
  await Promise.all([alice.dispose(), dave.dispose()]);
});
