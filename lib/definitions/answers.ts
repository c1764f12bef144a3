import { z } from 'zod';
import { definitionSchema } from './document';

/**
 * The answers of the action definitions admin API (`/api/v1/admin/actions`), as JSON writes them.
 * Only zod here, so the dashboard's client and the OpenAPI document import them. Strict: a field
 * added to an answer and not here fails the live check (e2e/openapi.spec.ts).
 */

const at = z.iso.datetime({ offset: true });

/** One problem of a document: `path` in the document as the CLI prints it (`rules.0.require`). */
export const definitionProblemSchema = z.strictObject({ path: z.string(), message: z.string() });

/** One published version of a definition. */
export const storedDefinitionSchema = z.strictObject({
  name: z.string(),
  version: z.int().min(1),
  documentHash: z.string().describe('`sha256:` and the hex of the document’s RFC 8785 form.'),
  note: z.string().describe('Why it was published.'),
  publishedBy: z.string().describe('The user id of the admin who published it, or `cli`.'),
  publishedAt: at,
  document: definitionSchema,
});

export const definitionListSchema = z.strictObject({
  actions: z.array(storedDefinitionSchema).describe('The newest version of each definition, by name.'),
});

export const definitionHistorySchema = z.strictObject({
  name: z.string(),
  versions: z.array(storedDefinitionSchema).describe('Every version, newest first.'),
});

const warnings = z.array(z.string()).describe('The contracts lint’s warnings.');
const lines = z.array(z.string()).describe('The plan as `actions:plan` prints it, a line each.');

export const definitionPlanSchema = z.discriminatedUnion('valid', [
  z.strictObject({
    valid: z.literal(false),
    problems: z.array(definitionProblemSchema),
    warnings,
    lines,
  }),
  z.strictObject({
    valid: z.literal(true),
    name: z.string(),
    currentVersion: z.int().min(1).nullable().describe('The tenant’s current version; null: the action is new.'),
    unchanged: z.boolean().describe('The document is the current version’s: publishing it makes no version.'),
    changes: z.array(z.string()).describe('What publishing it would change, in words.'),
    breaking: z.array(z.string()).describe('The changes that refuse what an agent sent validly before.'),
    replay: z
      .strictObject({
        proposals: z.int().min(0).describe('How many of the action’s newest proposals were replayed (at most 100).'),
        invalid: z.int().min(0).describe('Of those, how many its contracts would refuse.'),
        refused: z
          .array(z.strictObject({ code: z.string(), count: z.int().min(1) }))
          .describe('Of those, how many each rule would refuse, most first.'),
      })
      .describe('The action’s recent proposals through the new definition: facts as read then, no other open ones.'),
    warnings,
    lines,
  }),
]);

export const definitionPublishedSchema = z.strictObject({
  name: z.string(),
  version: z.int().min(1).describe('The version published, or the current one when `unchanged`.'),
  documentHash: z.string(),
  unchanged: z.boolean().describe('The document was the current version’s: nothing was published.'),
});

export type StoredDefinitionView = z.infer<typeof storedDefinitionSchema>;
export type DefinitionList = z.infer<typeof definitionListSchema>;
export type DefinitionHistory = z.infer<typeof definitionHistorySchema>;
export type DefinitionPlanAnswer = z.infer<typeof definitionPlanSchema>;
export type DefinitionPublished = z.infer<typeof definitionPublishedSchema>;
