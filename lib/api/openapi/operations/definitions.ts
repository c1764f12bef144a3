import {
  definitionHistorySchema,
  definitionListSchema,
  definitionPlanSchema,
  definitionProblemSchema,
  definitionPublishedSchema,
  storedDefinitionSchema,
} from '@/lib/definitions/answers';
import { definitionSchema } from '@/lib/definitions/document';
import {
  definitionPlanRequest,
  definitionPublishRequest,
  documentedPlanRequest,
  documentedPublishRequest,
  evidenceSettingsRequest,
  evidenceSettingsSchema,
} from '@/lib/definitions/requests';
import { component } from '../components';
import { bodyOf, type Operation } from '../operation';

/**
 * The action definitions admin API (docs/actions.md, "Managing definitions"): the CLI's
 * `actions:list`, `actions:plan` and `actions:apply` for the tenant the dashboard shows.
 */

// One direction for the document wherever it appears: a client sends it as an answer gave it.
component(definitionSchema, 'ActionDefinition', 'input');
component(definitionProblemSchema, 'ActionDefinitionProblem', 'input');
component(storedDefinitionSchema, 'StoredActionDefinition', 'input');

const answer = (schema: Parameters<typeof component>[0], id: string) => ({ json: component(schema, id, 'input') });
const published = answer(definitionPublishedSchema, 'ActionDefinitionPublished');

const actions = '/api/v1/admin/actions';
const admin = (operation: Omit<Operation, 'tag' | 'access'>): Operation => ({
  tag: 'Admin API',
  access: 'admin',
  ...operation,
});

export const definitionOperations: Operation[] = [
  admin({
    operationId: 'listActionDefinitions',
    method: 'get',
    path: actions,
    summary: "The tenant's action definitions: the newest version of each",
    description: 'Each with its document as published, its hash, its note, who published it and when.',
    success: [
      {
        status: 200,
        description: 'The current definitions, by name.',
        body: answer(definitionListSchema, 'ActionDefinitionList'),
      },
    ],
  }),
  admin({
    operationId: 'getActionDefinition',
    method: 'get',
    path: `${actions}/{name}`,
    summary: "Every version of one of the tenant's action definitions, newest first",
    description: 'A name the tenant never published (or only another tenant did) is 404.',
    success: [
      {
        status: 200,
        description: 'The versions, newest first.',
        body: answer(definitionHistorySchema, 'ActionDefinitionHistory'),
      },
    ],
    errors: [{ status: 404, codes: ['not_found'] }],
  }),
  admin({
    operationId: 'planActionDefinition',
    method: 'post',
    path: `${actions}/plan`,
    summary: 'Plan publishing a definition: its problems, or the change in words and what breaks agents',
    description:
      'What `actions:plan` says: `valid: false` with each problem by its path in the document ' +
      '(`rules.0.require`), or the change against the current version in words, the changes that break ' +
      'an agent (a field made required, an enum narrowed, a type changed, a version no longer accepted) and ' +
      "the contracts lint's warnings; `lines` is the plan as the CLI prints it. A document with problems is " +
      'a 200 too: the plan says what to fix. Writes nothing.',
    body: bodyOf(definitionPlanRequest, 'ActionDefinitionPlanRequest', { schema: documentedPlanRequest }),
    success: [{ status: 200, description: 'The plan.', body: answer(definitionPlanSchema, 'ActionDefinitionPlan') }],
  }),
  admin({
    operationId: 'publishActionDefinition',
    method: 'put',
    path: actions,
    summary: "Publish a definition as its action's next version",
    description:
      'The document is checked as `POST …/plan` checks it: one with problems is 422 `invalid_definition` ' +
      'with `problems[]` (`{path, message}`, the path in the document); a body of the wrong shape (no ' +
      '`document`, a blank `note`, an unknown key) is 422 `invalid_definition` with `issues[]`. `note` ' +
      '(1–500 characters, not blank) says why; it is stored with the version and in its `action.published` ' +
      'audit event. `baseVersion` (optional) is the version the plan was made against (0: none): when it ' +
      'is no longer the newest, or another publish of the action came first, nothing is published and the ' +
      'answer is 409 `stale_definition`. The current version unchanged publishes nothing: 200 with ' +
      '`unchanged: true`. Every process forgets the tenant’s cached definitions when it commits.',
    body: bodyOf(definitionPublishRequest, 'ActionDefinitionPublishRequest', { schema: documentedPublishRequest }),
    success: [
      { status: 200, description: 'Unchanged: the current version; nothing was published.', body: published },
      { status: 201, description: 'The version published.', body: published },
    ],
    errors: [{ status: 409, codes: ['stale_definition'] }],
  }),
  admin({
    operationId: 'getEvidenceSettings',
    method: 'get',
    path: '/api/v1/admin/evidence/settings',
    summary: "The tenant's evidence resolver",
    description: 'null: the evidence refs agents cite are read from the systems of record.',
    success: [
      {
        status: 200,
        description: 'The resolver.',
        body: answer(evidenceSettingsSchema, 'EvidenceSettings'),
      },
    ],
  }),
  admin({
    operationId: 'putEvidenceSettings',
    method: 'put',
    path: '/api/v1/admin/evidence/settings',
    summary: "Set (or clear) the tenant's evidence resolver",
    description:
      "New proposals' evidence refs are `POST`ed there as `{tenant, ref}` with a request proof, answered " +
      '`200 {tenant, id, kind, text}` or `404` (a record of another tenant reads as a missing one); null ' +
      'reads them from the systems of record again. The URL must be http(s) at an origin the operator allows ' +
      '(`ACTION_ALLOWED_ORIGINS`), else 422 `invalid_evidence_settings`. Audited as `tenant.settings_changed` ' +
      'when it changes; every process reads it again when it commits.',
    body: bodyOf(evidenceSettingsRequest, 'EvidenceSettingsRequest'),
    success: [
      {
        status: 200,
        description: 'The resolver now; `changed` is false when it already was so.',
        body: answer(evidenceSettingsSchema, 'EvidenceSettings'),
      },
    ],
  }),
];
