import { grantListSchema, grantSchema } from '@/lib/api/responses/grants';
import { GRANT_MAX_MINUTES, grantRequest, revokeRequest } from '@/lib/grants/requests';
import { component } from '../components';
import { bodyOf, type Operation } from '../operation';
import { NO_MEMBERSHIP } from './reads';

const grant = component(grantSchema, 'Grant');

/** Standing grants (docs/grants.md). */
export const grantOperations: Operation[] = [
  {
    operationId: 'listGrants',
    method: 'get',
    path: '/api/v1/grants',
    tag: 'Operator API',
    access: 'session',
    summary: "The tenant's standing grants, newest first (every member, viewers too)",
    description: '50 a page; `nextCursor` fetches the next. Unknown or repeated parameters are a 400 `invalid_query`.',
    query: [
      { name: 'state', description: '`active`: only grants that still cover something.', values: ['all', 'active'] },
      { name: 'cursor', description: 'The `nextCursor` of the page before.' },
    ],
    success: [
      { status: 200, description: 'One page of grants.', body: { json: component(grantListSchema, 'GrantList') } },
    ],
    errors: [NO_MEMBERSHIP, { status: 400, codes: ['invalid_query'] }],
  },
  {
    operationId: 'createGrant',
    method: 'post',
    path: '/api/v1/grants',
    tag: 'Operator API',
    access: 'session',
    summary: 'Approve further proposals like one you approved, for a while, within caps',
    description:
      `From a proposal you approved whose rule needs one approver (no passkey): further proposals of the same ` +
      `action, agent key and rule (and resource, with \`sameResource\`) are approved in your name for ` +
      `\`minutes\` (at most ${GRANT_MAX_MINUTES}), at most \`maxCount\` of them and, for money, ` +
      `\`maxTotalMinor\` in all (the source's currency). A proposal with any risk flag, or routed otherwise, ` +
      `still waits for a person. Revocation, expiry, a change of your role, leaving the tenant or a new policy ` +
      `for the action end it. Audited as \`grant.created\`; each covered proposal as \`proposal.approved\` with ` +
      `reason \`grant\`.`,
    body: bodyOf(grantRequest, 'GrantRequest'),
    success: [{ status: 201, description: 'The grant.', body: { json: grant } }],
    errors: [
      NO_MEMBERSHIP,
      { status: 403, codes: ['forbidden_role'] },
      { status: 404, codes: ['not_found'] },
      {
        status: 409,
        codes: ['not_your_approval', 'not_approved', 'not_grantable', 'policy_changed', 'already_granted'],
      },
    ],
  },
  {
    operationId: 'revokeGrant',
    method: 'post',
    path: '/api/v1/grants/{id}/revoke',
    tag: 'Operator API',
    access: 'session',
    summary: 'End a standing grant at once (its granter or an admin)',
    description:
      'Optional `{"reason"}`. Audited as `grant.revoked`. Another tenant\'s or an unknown id is 404; a grant ' +
      'that no longer covers anything is 409 `grant_ended`.',
    body: bodyOf(revokeRequest, 'GrantRevocation'),
    success: [{ status: 200, description: 'The grant as it now stands.', body: { json: grant } }],
    errors: [
      NO_MEMBERSHIP,
      { status: 403, codes: ['forbidden_role'] },
      { status: 404, codes: ['not_found'] },
      { status: 409, codes: ['grant_ended'] },
    ],
  },
];
