import { z } from 'zod';
import { checkpointSchema, healthSchema, jwksSchema, queuePageSchema } from '@/lib/api/responses/reads';
import { HISTORY_OUTCOMES } from '@/lib/audit/history-view';
import { EXPORT_CONTENT_TYPES } from '@/lib/audit/export';
import { PROPOSAL_SORTS } from '@/lib/proposals/list-cursor';
import { QUEUE_GROUPS } from '@/lib/shared/queue-view';
import { component } from '../components';
import type { Operation } from '../operation';
import { oversightFiguresSchema } from '@/lib/api/responses/oversight';
import { OVERSIGHT_DEFAULT_DAYS, OVERSIGHT_MAX_DAYS } from '@/lib/oversight/figures';

const invalidQuery = { status: 400, codes: ['invalid_query'] } as const;
/** Tenant-wide reads need a membership in the tenant the dashboard shows: someone who has none is refused. */
export const NO_MEMBERSHIP = { status: 403, codes: ['forbidden'] } as const;

/** The tenant-wide reads of the dashboard, and the public documents. */
export const readOperations: Operation[] = [
  {
    operationId: 'getOversight',
    method: 'get',
    path: '/api/v1/oversight',
    tag: 'Operator API',
    summary: 'How closely people look before they decide: per approver, per action and per channel',
    description:
      'Any member of the tenant the dashboard shows (viewer, approver, admin). Over the decisions of the last `days` days: decisions, approval rate, time from waiting to decided (p50, p95), dwell from the person first opening the proposal to deciding (p50, p10), expired and stale counts, and each approver marked when their figures meet the tenant\'s rubber-stamp thresholds (docs/oversight.md). Writes nothing.',
    access: 'session',
    query: [{ name: 'days', description: `The window in days, 1–${OVERSIGHT_MAX_DAYS} (default ${OVERSIGHT_DEFAULT_DAYS}); anything else is 422 \`invalid_days\`.` }],
    success: [{ status: 200, description: 'The figures.', body: { json: component(oversightFiguresSchema, 'OversightFigures') } }],
    errors: [NO_MEMBERSHIP, { status: 422, codes: ['invalid_days'] }],
  },
  {
    operationId: 'getQueue',
    method: 'get',
    path: '/api/v1/queue',
    tag: 'Operator API',
    summary: 'What waits for a decision, as the signed-in person sees it',
    description: 'Unknown parameters or values are a 400 `invalid_query` whose `messages` say which.',
    access: 'session',
    query: [
      { name: 'tenant', description: 'One of your tenants (default: your first).' },
      { name: 'group', description: 'Which proposals.', values: QUEUE_GROUPS },
      { name: 'action', description: 'Only this action.' },
      { name: 'agent', description: 'Only this agent.' },
      { name: 'risk', description: 'Only this risk level.' },
      { name: 'sort', description: 'The order.', values: PROPOSAL_SORTS },
      { name: 'cursor', description: 'The `nextCursor` of the page before.' },
    ],
    success: [{ status: 200, description: 'One page of the queue.', body: { json: component(queuePageSchema, 'QueuePage') } }],
    errors: [invalidQuery, { status: 404, codes: ['not_found'] }],
  },
  {
    operationId: 'exportAuditEvents',
    method: 'get',
    path: '/api/v1/audit/events',
    tag: 'Operator API',
    summary: "The tenant's audit events as a download",
    description: 'A session only (an Authorization header is refused with 401); streamed oldest first with every hashed field, `prevHash` and `hash`.',
    access: 'session',
    query: [
      { name: 'format', description: 'Required: the file format.', values: ['csv', 'jsonl'] },
      { name: 'tab', description: "`decisions`: every event of the proposals the Decisions view shows under these filters. Otherwise the events the Events view shows (unfiltered: the whole chain).", values: ['decisions', 'events'] },
      { name: 'person', description: "A member's id." },
      { name: 'agent', description: 'An agent name.' },
      { name: 'action', description: 'An action name.' },
      { name: 'outcome', description: "The proposal's outcome.", values: HISTORY_OUTCOMES },
      { name: 'type', description: 'An audit event type.' },
      { name: 'from', description: 'First day, like 2030-01-31.' },
      { name: 'to', description: 'Last day, inclusive.' },
      { name: 'tz', description: 'The IANA time zone of `from` and `to` (default UTC).' },
      { name: 'q', description: 'Words to search for.' },
    ],
    success: [{ status: 200, description: 'One event a line (JSON Lines) or a CSV row each.', body: { text: Object.values(EXPORT_CONTENT_TYPES).map((type) => type.split(';')[0]!) }, headers: ['Content-Disposition'] }],
    errors: [invalidQuery, NO_MEMBERSHIP],
  },
  {
    operationId: 'getAuditCheckpoint',
    method: 'get',
    path: '/api/v1/audit/checkpoint',
    tag: 'Operator API',
    summary: "A signed checkpoint of the tenant's audit chain",
    description: 'The head of the tenant\'s audit hash chain (`seq`, `hash`, `at`) signed as a JWS, with the public keys that verify it. Any member of the tenant the dashboard shows may fetch it.',
    access: 'session',
    success: [{ status: 200, description: 'Save it and give it to `npm run cli -- audit:verify --checkpoint FILE` later.', body: { json: component(checkpointSchema, 'Checkpoint') } }],
    errors: [NO_MEMBERSHIP],
  },
  {
    operationId: 'getJwks',
    method: 'get',
    path: '/.well-known/jwks.json',
    tag: 'Public',
    summary: 'The public keys that verify signed commands and checkpoints',
    description: 'A JWK Set of Ed25519 keys (`kid`, `x`; never `d`): executors verify signed commands with it, and `audit:verify` verifies checkpoints. Cacheable for five minutes; after a rotation the old keys stay listed until they are retired.',
    access: 'public',
    success: [{ status: 200, description: 'Ed25519 public keys (never a private part).', body: { json: component(jwksSchema, 'Jwks') } }],
  },
  {
    operationId: 'getHealth',
    method: 'get',
    path: '/api/health',
    tag: 'Public',
    summary: 'Liveness and database reachability',
    description: 'Answers 503 with `status: "degraded"` while the database cannot be reached.',
    access: 'public',
    success: [{ status: 200, description: 'The server and its database answer.', body: { json: component(healthSchema, 'Health') } }],
  },
  {
    operationId: 'getOpenApiDocument',
    method: 'get',
    path: '/api/v1/openapi.json',
    tag: 'Public',
    summary: 'This document',
    description: 'This OpenAPI 3.1 document, generated from the zod schemas the handlers read and answer with. Public and the same for every caller: it holds nothing of a tenant.',
    access: 'public',
    success: [{ status: 200, description: 'OpenAPI 3.1.', body: { json: component(z.looseObject({ openapi: z.string().regex(/^3\.1\./) }), 'OpenApiDocument') } }],
  },
];
