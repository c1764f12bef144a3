import { z } from 'zod';
import {
  agentProposalViewSchema,
  operatorProposalViewSchema,
  proposalCreatedSchema,
} from '@/lib/api/responses/proposals';
import { contractDocumentsSchema } from '@/lib/api/responses/reads';
import { envelopeSchema } from '@/lib/input/envelope';
import { contractBranches } from '../actions';
import { addJsonSchema, component } from '../components';
import type { Operation } from '../operation';

const envelope = component(
  addJsonSchema(
    envelopeSchema.describe(
      'The proposal envelope (docs/design.md §4), closed: any other top-level field is refused. `args` follows ' +
        'the contract of `action` at `contractVersion`: ' +
        ('each version is a component `<action>.v<version>.args` here, and `GET /api/v1/contracts` serves them ' +
          'with the statuses of your tenant.'),
    ),
    contractBranches,
  ),
  'ProposalEnvelope',
  'input',
);

const proposalView = component(
  z
    .union([agentProposalViewSchema, operatorProposalViewSchema])
    .describe('With an agent key the agent view; with a session the operator view, with `viewer`.'),
  'ProposalView',
);

/** What the gates refuse a candidate with, at intake and when an operator's revision goes through them again. */
export const GATE_REFUSALS = {
  forbidden: ['not_authorized', 'action_not_allowed', 'denied_by_policy'],
  unprocessable: [
    'contract_violation',
    'unsupported_contract_version',
    'exceeds_refundable_balance',
    'currency_mismatch',
    'order_not_refundable',
    'hold_limit',
  ],
} as const;

/** The agent API (docs/design.md §4); reading a proposal and the contracts is open to sessions too. */
export const agentOperations: Operation[] = [
  {
    operationId: 'createProposal',
    method: 'post',
    path: '/api/v1/proposals',
    tag: 'Agent API',
    summary: 'Propose an action',
    description:
      'Checked in gate order: the body (400/413/415), the envelope and contract (422 `schema`), the resource and ' +
      'key (403), the business rules (422 `business_rule`), the policy (403 `denied_by_policy`). A retry with ' +
      'the same `requestId` and payload answers 200 with the same proposal.',
    access: 'agent',
    body: { schema: envelope, invalidCode: 'contract_violation', sameOrigin: false },
    success: [
      {
        status: 201,
        description: 'A new proposal.',
        body: { json: component(proposalCreatedSchema, 'ProposalCreated') },
        headers: ['Deprecation', 'Sunset'],
      },
      {
        status: 200,
        description: 'A retry of the same requestId and payload: the same proposal, unchanged.',
        body: { json: proposalCreatedSchema },
        headers: ['Deprecation', 'Sunset'],
      },
    ],
    errors: [
      { status: 403, codes: GATE_REFUSALS.forbidden },
      { status: 409, codes: ['idempotency_conflict'] },
      { status: 422, codes: [...GATE_REFUSALS.unprocessable, 'unknown_repair_target', 'repair_limit_reached'] },
      { status: 429, codes: ['rate_limited'], headers: ['Retry-After'] },
    ],
  },
  {
    operationId: 'getProposal',
    method: 'get',
    path: '/api/v1/proposals/{id}',
    tag: 'Agent API',
    summary: 'Read a proposal, its decisions and its execution',
    description:
      "An agent reads its own tenant's proposals; an operator those of their tenants. Anything else is the same " +
      '404 as an unknown id.',
    access: 'agent_or_session',
    success: [
      { status: 200, description: 'The proposal.', body: { json: proposalView }, headers: ['Deprecation', 'Sunset'] },
    ],
    errors: [{ status: 404, codes: ['not_found'] }],
  },
  {
    operationId: 'listContracts',
    method: 'get',
    path: '/api/v1/contracts',
    tag: 'Agent API',
    summary: 'Every contract version as JSON Schema',
    description:
      'Each action with its title and executor scope, and per version the arguments as JSON Schema (the same as ' +
      'the `<action>.v<version>.args` components here) with the status your tenant gives it (`current`, ' +
      "`supported` with its sunset, `shadow`, `retired`) — read it before proposing, or to build a model's tool " +
      'list.',
    access: 'agent_or_session',
    success: [
      {
        status: 200,
        description: "Each action's versions with the caller's tenant's statuses, and the envelope.",
        body: { json: component(contractDocumentsSchema, 'ContractDocuments') },
      },
    ],
  },
];
