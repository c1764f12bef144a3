import { freshFactsSchema, operatorProposalDetailSchema, reproposalCreatedSchema } from '@/lib/api/responses/proposals';
import { bundleSchema } from '@/lib/audit/bundle-verify';
import {
  decisionRequest,
  extendRequest,
  recheckRequest,
  reproposeRequest,
  revisionRequest,
} from '@/lib/decisions/requests';
import { component } from '../components';
import { bodyOf, type Operation } from '../operation';
import { GATE_REFUSALS } from './agent';

const detail = component(operatorProposalDetailSchema, 'OperatorProposalDetail');
const proposalPath = (verb: string) => `/api/v1/proposals/{id}/${verb}`;

/** What an operator does with one proposal (docs/design.md §6, §12): a session, a same-origin `Origin`. */
export const proposalOperations: Operation[] = [
  {
    operationId: 'decideProposal',
    method: 'post',
    path: proposalPath('decisions'),
    tag: 'Operator API',
    summary: 'Approve or reject a proposal',
    description:
      'The approval binds the payload hash the person saw; a rejection needs a reason. The world is checked ' +
      'again before an approval counts. A decision may be signed with the person’s passkey: `passkey: ' +
      '{statement, response}` from `POST …/decisions/challenge` and the browser; an approval whose routing rule ' +
      'says `"passkey": true`, or in a tenant that requires passkeys, must be (`passkey_required`). The ' +
      'statement must be this proposal, decision, stored hash and person, issued to them and unused within 2 ' +
      'minutes; the credential theirs, its counter moving forward, the assertion verified for this origin and ' +
      'relying party with the user verified. The statement and assertion go into the decision’s audit event ' +
      '(docs/passkeys.md).',
    access: 'session',
    body: bodyOf(decisionRequest, 'DecisionRequest'),
    success: [{ status: 200, description: 'The proposal after the decision.', body: { json: detail } }],
    errors: [
      {
        status: 403,
        codes: ['self_approval', 'forbidden_role', 'passkey_required', 'passkey_not_yours', 'passkey_invalid'],
      },
      { status: 404, codes: ['not_found'] },
      {
        status: 409,
        codes: [
          'already_decided',
          'hash_mismatch',
          'expired',
          'stale',
          'passkey_statement_mismatch',
          'passkey_challenge_unknown',
          'passkey_challenge_expired',
          'passkey_counter',
        ],
      },
      { status: 422, codes: ['passkey_host'] },
    ],
  },
  {
    operationId: 'extendProposal',
    method: 'post',
    path: proposalPath('extend'),
    tag: 'Operator API',
    summary: 'Extend a pending proposal once, by its original duration',
    description:
      'Someone who may decide the proposal (not a viewer) may extend it once while it is pending; the new expiry ' +
      'is the old one plus the original duration. A decided or expired proposal is refused.',
    access: 'session',
    body: bodyOf(extendRequest, 'EmptyRequest'),
    success: [{ status: 200, description: 'The proposal with its new expiry.', body: { json: detail } }],
    errors: [
      { status: 403, codes: ['forbidden_role'] },
      { status: 404, codes: ['not_found'] },
      { status: 409, codes: ['already_extended', 'already_decided', 'expired'] },
    ],
  },
  {
    operationId: 'reviseProposal',
    method: 'post',
    path: proposalPath('revisions'),
    tag: 'Operator API',
    summary: "Edit a pending proposal's arguments into a new revision",
    description:
      "The revision goes through every gate again under the agent's key and replaces (cancels) the proposal; " +
      'someone other than the editor must approve it. `reason` (1–500 characters as sent, not only blank space) ' +
      'says why: it is stored with the revision, recorded in its audit events and shown with it.',
    access: 'session',
    body: bodyOf(revisionRequest, 'RevisionRequest'),
    success: [{ status: 201, description: 'The new revision.', body: { json: detail } }],
    errors: [
      { status: 403, codes: ['forbidden_role', ...GATE_REFUSALS.forbidden] },
      { status: 404, codes: ['not_found'] },
      { status: 409, codes: ['already_decided', 'expired'] },
      { status: 422, codes: ['locked_field', 'no_change', ...GATE_REFUSALS.unprocessable] },
    ],
  },
  {
    operationId: 'requestReproposal',
    method: 'post',
    path: proposalPath('repropose-request'),
    tag: 'Operator API',
    summary: 'Ask the agent to propose a stale or changed proposal again',
    description:
      'For a proposal that went stale, or whose resource changed since it was proposed: the agent reads ' +
      '`reproposal` (when, why, your note) on `GET /api/v1/proposals/{id}` and proposes again with a new ' +
      '`requestId`.',
    access: 'session',
    body: bodyOf(reproposeRequest, 'ReproposeRequest'),
    success: [
      {
        status: 201,
        description: 'What the agent will read on the proposal as `reproposal`.',
        body: { json: component(reproposalCreatedSchema, 'ReproposalCreated') },
      },
    ],
    errors: [
      { status: 403, codes: ['forbidden_role'] },
      { status: 404, codes: ['not_found'] },
      { status: 409, codes: ['not_changed', 'already_requested'] },
    ],
  },
  {
    operationId: 'recheckProposal',
    method: 'post',
    path: proposalPath('recheck'),
    tag: 'Operator API',
    summary: "Read a proposal's facts again from the system of record",
    description:
      'What the dashboard asks when someone previews or opens a proposal: the facts at proposal beside the facts ' +
      'now. Any member of the tenant may ask. The read is bounded (about 2 s; `unavailable` when the system of ' +
      'record does not answer, nothing changed) and one answer is shared for about 5 s per proposal. What it ' +
      'finds is judged as the background re-check judges it: a proposal that no longer holds ends `stale`, one ' +
      'whose resource moved is marked changed since proposed.',
    access: 'session',
    body: bodyOf(recheckRequest, 'EmptyRequest'),
    success: [
      {
        status: 200,
        description: 'The facts at proposal and now, and what the check came to.',
        body: { json: component(freshFactsSchema, 'FreshFacts') },
      },
    ],
    errors: [{ status: 404, codes: ['not_found'] }],
  },
  {
    operationId: 'getEvidenceBundle',
    method: 'get',
    path: proposalPath('evidence-bundle'),
    tag: 'Operator API',
    summary: "A proposal's evidence bundle, to verify offline",
    description:
      "A session only: an Authorization header is refused with 401. Holds only this proposal's events (and the " +
      'registrations of the passkeys that signed its decisions), each with an RFC 6962 inclusion proof against ' +
      "`checkpoint`, the tenant's log checkpoint as a C2SP signed note made at download time. `npm run cli -- " +
      'bundle:verify FILE` checks the download.',
    access: 'session',
    success: [
      {
        status: 200,
        description: 'The bundle, as a JSON download.',
        body: { json: component(bundleSchema, 'EvidenceBundle') },
        headers: ['Content-Disposition'],
      },
    ],
    errors: [{ status: 404, codes: ['not_found'] }],
  },
];
