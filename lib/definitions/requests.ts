import { z } from 'zod';
import { type RequestBody, requestBody } from '@/lib/input/request-body';
import { definitionSchema, serviceUrl } from './document';

/**
 * The bodies of the action definitions admin API (`/api/v1/admin/actions`). Only zod here, so the
 * dashboard's client may import them. The document itself is read as any JSON and checked by
 * parse.ts, as the CLI checks a file: its problems are named by their path in the document.
 */

/**
 * Why it is published: 1–500 characters (store.ts `NOTE_MAX`, the table's check), not blank. One
 * issue per note: an empty one is too short, not also blank.
 */
const note = z.string().min(1, { abort: true }).max(500).regex(/\S/, { message: 'the note must not be blank' });

/** The version the plan was made against (0: the action had none); when given and not the newest, 409. */
const baseVersion = z.int().min(0).max(1_000_000);

const MESSAGE = 'Send {document} (and {note} to publish): the action definition as JSON; see the issues.';

export const definitionPlanRequest: RequestBody<{ document: unknown }> = requestBody(
  z.strictObject({ document: z.unknown() }),
  'invalid_definition',
  MESSAGE,
);

export type DefinitionPublishRequest = { document: unknown; note: string; baseVersion?: number };

export const definitionPublishRequest: RequestBody<DefinitionPublishRequest> = requestBody(
  z.strictObject({ document: z.unknown(), note, baseVersion: baseVersion.optional() }),
  'invalid_definition',
  MESSAGE,
);

/** The bodies as the OpenAPI document shows them: the document in the definition's own schema. */
export const documentedPlanRequest = z.strictObject({ document: definitionSchema });
export const documentedPublishRequest = z.strictObject({
  document: definitionSchema,
  note,
  baseVersion: baseVersion.optional(),
});

/** `PUT /api/v1/admin/evidence/settings`: the tenant's evidence resolver, or null for the systems of record. */
export const evidenceSettingsRequest = requestBody(
  z.strictObject({ resolver: serviceUrl.nullable() }),
  'invalid_evidence_settings',
  'Send {"resolver": "https://…"} (an http(s) URL at an origin the operator allows) or {"resolver": null}.',
);

export type EvidenceSettingsRequest = z.infer<typeof evidenceSettingsRequest.schema>;

/** What the evidence settings answer. */
export const evidenceSettingsSchema = z.strictObject({
  resolver: z
    .string()
    .nullable()
    .describe("The tenant's evidence resolver; null: cited refs are read from the systems of record."),
  changed: z.boolean().optional().describe('On PUT: false when it already was so (nothing was written or audited).'),
});

export type EvidenceSettings = z.infer<typeof evidenceSettingsSchema>;
