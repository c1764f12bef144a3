import { z } from 'zod';
import { oversightFiguresSchema } from '@/lib/api/responses/oversight';
import { checkpointSchema, healthSchema, jwksSchema, queuePageSchema } from '@/lib/api/responses/reads';
import { EXPORT_CONTENT_TYPES } from '@/lib/audit/export';
import { HISTORY_OUTCOMES } from '@/lib/audit/history-view';
import { consistencyProofSchema, inclusionProofSchema } from '@/lib/audit/tlog/proofs';
import { OVERSIGHT_DEFAULT_DAYS, OVERSIGHT_MAX_DAYS } from '@/lib/oversight/figures';
import { PROPOSAL_SORTS } from '@/lib/proposals/list-cursor';
import { QUEUE_GROUPS } from '@/lib/shared/queue-view';
import { component } from '../components';
import type { Operation } from '../operation';

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
      'Any member of the tenant the dashboard shows (viewer, approver, admin). Over the decisions of the last ' +
      '`days` days: decisions, approval rate, time from waiting to decided (p50, p95), dwell from the person ' +
      'first opening the proposal to deciding (p50, p10), expired and stale counts, and each approver marked ' +
      "when their figures meet the tenant's rubber-stamp thresholds (docs/oversight.md). Writes nothing.",
    access: 'session',
    query: [
      {
        name: 'days',
        description:
          `The window in days, 1–${OVERSIGHT_MAX_DAYS} (default ${OVERSIGHT_DEFAULT_DAYS}); anything else is ` +
          `422 \`invalid_days\`.`,
      },
    ],
    success: [
      {
        status: 200,
        description: 'The figures.',
        body: { json: component(oversightFiguresSchema, 'OversightFigures') },
      },
    ],
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
    success: [
      { status: 200, description: 'One page of the queue.', body: { json: component(queuePageSchema, 'QueuePage') } },
    ],
    errors: [invalidQuery, { status: 404, codes: ['not_found'] }],
  },
  {
    operationId: 'exportAuditEvents',
    method: 'get',
    path: '/api/v1/audit/events',
    tag: 'Operator API',
    summary: "The tenant's audit events as a download",
    description:
      'A session only (an Authorization header is refused with 401); streamed oldest first with every hashed ' +
      'field, `prevHash` and `hash`. JSON Lines holds the events up to the tenant’s checkpoint made when the ' +
      'download began and ends with a `countersign.export-end/2` line: the selection, the row count, the last ' +
      'row and that checkpoint as a C2SP signed note (`note`, `treeSize`, `origin`, `keys`); each row of a ' +
      'filtered export (any filter, or the decisions view) carries `inclusion`, its RFC 6962 inclusion proof in ' +
      'that checkpoint (docs/evidence.md).',
    access: 'session',
    query: [
      { name: 'format', description: 'Required: the file format.', values: ['csv', 'jsonl'] },
      {
        name: 'tab',
        description:
          '`decisions`: every event of the proposals the Decisions view shows under these filters. Otherwise the ' +
          'events the Events view shows (unfiltered: the whole chain).',
        values: ['decisions', 'events'],
      },
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
    success: [
      {
        status: 200,
        description: 'One event a line (JSON Lines) or a CSV row each.',
        body: { text: Object.values(EXPORT_CONTENT_TYPES).map((type) => type.split(';')[0]!) },
        headers: ['Content-Disposition'],
      },
    ],
    errors: [invalidQuery, NO_MEMBERSHIP],
  },
  {
    operationId: 'getAuditCheckpoint',
    method: 'get',
    path: '/api/v1/audit/checkpoint',
    tag: 'Operator API',
    summary: "A signed checkpoint of the tenant's audit chain",
    description:
      "The head of the tenant's audit log, signed twice with the server's signing key: as `note`, a C2SP " +
      'tlog-checkpoint signed note (origin `<host of APP_URL>/countersign/<tenant id>`, tree size `seq`, the ' +
      'base64 RFC 6962 root of the tenant\'s events; docs/evidence.md, "The log format"), and as `checkpoint`, ' +
      "a JWS of the hash chain's head (`seq`, `hash`, `at`); with the public keys that verify both. Any member " +
      'of the tenant the dashboard shows may fetch it.',
    access: 'session',
    success: [
      {
        status: 200,
        description: 'Save it and give it to `npm run cli -- audit:verify --checkpoint FILE` later.',
        body: { json: component(checkpointSchema, 'Checkpoint') },
      },
    ],
    errors: [NO_MEMBERSHIP],
  },
  {
    operationId: 'getAuditInclusionProof',
    method: 'get',
    path: '/api/v1/audit/proofs/inclusion',
    tag: 'Operator API',
    summary: "Proof that an event is in the tenant's log at a checkpoint",
    description:
      "The RFC 6962 inclusion proof of the tenant's event #`seq` (leaf seq-1) in its tree of its first `size` " +
      'events: check it against a checkpoint of tree size `size` (docs/evidence.md, "The log format"). Any ' +
      "member of the tenant the dashboard shows; the tenant is the session's. Unknown, repeated or missing " +
      'parameters, and a `seq` or `size` past the log, are a 400 `invalid_query` whose `messages` say which.',
    access: 'session',
    query: [
      { name: 'seq', description: "The event's sequence number, from 1. Required." },
      { name: 'size', description: 'The tree size of the checkpoint to check against, from `seq`. Required.' },
    ],
    success: [
      { status: 200, description: 'The proof.', body: { json: component(inclusionProofSchema, 'InclusionProof') } },
    ],
    errors: [invalidQuery, NO_MEMBERSHIP],
  },
  {
    operationId: 'getAuditConsistencyProof',
    method: 'get',
    path: '/api/v1/audit/proofs/consistency',
    tag: 'Operator API',
    summary: "Proof that a later checkpoint of the tenant's log extends an earlier one",
    description:
      "The RFC 6962 consistency proof that the tenant's tree of its first `from` events is a prefix of its tree " +
      'of its first `to` events: with it, two saved checkpoints show that nothing signed in the earlier one was ' +
      'removed, changed or reordered (docs/evidence.md, "The log format"). Any member of the tenant the ' +
      "dashboard shows; the tenant is the session's. Unknown, repeated or missing parameters, `from` above `to` " +
      'and a `to` past the log are a 400 `invalid_query` whose `messages` say which.',
    access: 'session',
    query: [
      { name: 'from', description: "The earlier checkpoint's tree size, from 1. Required." },
      { name: 'to', description: "The later checkpoint's tree size, from `from`. Required." },
    ],
    success: [
      {
        status: 200,
        description: 'The proof (no hashes when `from` equals `to`).',
        body: { json: component(consistencyProofSchema, 'ConsistencyProof') },
      },
    ],
    errors: [invalidQuery, NO_MEMBERSHIP],
  },
  {
    operationId: 'getJwks',
    method: 'get',
    path: '/.well-known/jwks.json',
    tag: 'Public',
    summary: 'The public keys that verify signed commands and checkpoints',
    description:
      'A JWK Set of Ed25519 keys (`kid`, `x`; never `d`): executors verify signed commands with it, and ' +
      '`audit:verify` verifies checkpoints. Cacheable for five minutes; after a rotation the old keys stay ' +
      'listed until they are retired.',
    access: 'public',
    success: [
      {
        status: 200,
        description: 'Ed25519 public keys (never a private part).',
        body: { json: component(jwksSchema, 'Jwks') },
      },
    ],
  },
  {
    operationId: 'getHealth',
    method: 'get',
    path: '/api/health',
    tag: 'Public',
    summary: 'Liveness and database reachability',
    description: 'Answers 503 with `status: "degraded"` while the database cannot be reached.',
    access: 'public',
    success: [
      {
        status: 200,
        description: 'The server and its database answer.',
        body: { json: component(healthSchema, 'Health') },
      },
    ],
  },
  {
    operationId: 'getOpenApiDocument',
    method: 'get',
    path: '/api/v1/openapi.json',
    tag: 'Public',
    summary: 'This document',
    description:
      'This OpenAPI 3.1 document, generated from the zod schemas the handlers read and answer with. Public and ' +
      'the same for every caller: it holds nothing of a tenant.',
    access: 'public',
    success: [
      {
        status: 200,
        description: 'OpenAPI 3.1.',
        body: { json: component(z.looseObject({ openapi: z.string().regex(/^3\.1\./) }), 'OpenApiDocument') },
      },
    ],
  },
];
