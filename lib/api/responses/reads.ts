import { z } from 'zod';
import { QUEUE_COUNT_LIMIT, QUEUE_SCAN_LIMIT } from '@/lib/shared/queue-view';
import { flagSchema } from './proposals';

/** The answers of the read routes beside the proposal: queue, contracts, audit checkpoint, keys, health. */

const timestamp = z.iso.datetime({ offset: true });
const role = z.enum(['approver', 'admin']);

/** The viewer's part in a queued proposal (lib/shared/queue-view.ts). */
const viewerPartSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('decide') }),
  z.object({ kind: z.literal('approved'), more: z.int() }),
  z.object({ kind: z.literal('initiator'), how: z.enum(['on_behalf', 'edited']) }),
  z.object({ kind: z.literal('role'), needs: role }),
  z.object({ kind: z.literal('expired') }),
]);

const queueItemSchema = z.object({
  id: z.string(),
  summary: z.string(),
  approveLabel: z.string(),
  action: z.string(),
  agent: z.string(),
  risk: z.string(),
  rule: z.string(),
  role,
  approvals: z.object({ have: z.int(), need: z.int() }),
  payloadHash: z.string(),
  createdAt: timestamp,
  expiresAt: timestamp,
  flags: z.array(flagSchema),
  changedSinceProposed: z.string().nullable(),
  mine: viewerPartSchema,
  args: z.array(z.object({ name: z.string(), value: z.string(), hint: z.string().nullable() })),
  reason: z.string().nullable(),
  evidence: z.array(z.object({ id: z.string(), kind: z.string(), excerpt: z.string(), truncated: z.boolean() })),
});

/** `GET /api/v1/queue`. */
export const queuePageSchema = z.object({
  items: z
    .array(queueItemSchema)
    .describe(
      `A page; fewer, even none, when a group or filter is rare among the ${QUEUE_SCAN_LIMIT.toLocaleString('en')} ` +
        `pending proposals one page looks at: \`nextCursor\` then looks further.`,
    ),
  nextCursor: z.string().nullable().describe('Null when nothing follows.'),
  total: z.int(),
  counts: z.object({ 'needs-you': z.int(), waiting: z.int(), all: z.int() }),
  countsExact: z
    .boolean()
    .describe(
      `False when the queue holds more pending proposals than are counted (the first ` +
        `${QUEUE_COUNT_LIMIT.toLocaleString('en')}): \`total\` and \`counts\` are then lower bounds.`,
    ),
  asOf: timestamp,
});

const jsonSchemaDocument = z.record(z.string(), z.unknown()).describe('A JSON Schema (draft 2020-12).');

/** `GET /api/v1/contracts`: every contract version's JSON Schemas, with the caller's tenant's statuses. */
export const contractDocumentsSchema = z.object({
  envelope: jsonSchemaDocument,
  actions: z.array(
    z.object({
      action: z.string(),
      title: z.string(),
      scope: z.string(),
      versions: z.array(
        z.object({
          version: z.int(),
          status: z.enum(['current', 'supported', 'shadow', 'retired']),
          since: timestamp.nullable(),
          sunsetAt: timestamp.nullable(),
          input: jsonSchemaDocument,
          output: jsonSchemaDocument,
        }),
      ),
    }),
  ),
});

/** A public Ed25519 key that verifies signed commands and checkpoints: never its private part. */
export const publicJwkSchema = z.object({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string(),
  kid: z.string(),
  alg: z.literal('EdDSA'),
  use: z.literal('sig'),
});

/** `GET /.well-known/jwks.json`. */
export const jwksSchema = z.object({ keys: z.array(publicJwkSchema) });

/** `GET /api/v1/audit/checkpoint`: the signed head of the tenant's audit chain and the keys that verify it. */
export const checkpointSchema = z.object({
  tenant: z.string(),
  seq: z.int(),
  hash: z.string(),
  at: timestamp,
  checkpoint: z.string().describe('An EdDSA JWS of type `countersign-checkpoint+jwt` over {tenant, seq, hash, at}.'),
  origin: z
    .string()
    .describe("The log's name: `<host of APP_URL>/countersign/<tenant id>`, the note's first line and its key name."),
  note: z
    .string()
    .describe(
      'The same head as a C2SP tlog-checkpoint signed note: the origin, the tree size (`seq`) and the base64 RFC ' +
        "6962 root hash of the tenant's events, each on its own line, a blank line, then `— <origin> <base64(key " +
        'id || Ed25519 signature)>` (docs/evidence.md, "The log format").',
    ),
  keys: z.array(publicJwkSchema),
});

/** `GET /api/health`. */
export const healthSchema = z.union([
  z.object({ status: z.literal('ok'), database: z.object({ reachable: z.literal(true), driver: z.string() }) }),
  z.object({ status: z.literal('degraded'), database: z.object({ reachable: z.literal(false) }) }),
]);

export type QueuePage = z.infer<typeof queuePageSchema>;
export type ContractDocuments = z.infer<typeof contractDocumentsSchema>;
export type Checkpoint = z.infer<typeof checkpointSchema>;
export type Jwks = z.infer<typeof jwksSchema>;
export type Health = z.infer<typeof healthSchema>;
