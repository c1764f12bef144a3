import { z } from 'zod';
import { MAX_PASSWORD, MIN_PASSWORD } from '@/lib/auth/password-rules';
import { noFields, type RequestBody } from '@/lib/input/request-body';

/**
 * The request bodies of the members API (`/api/v1/admin/members/…`) and of accepting an
 * invitation. Only zod here, so the dashboard's client may import the types.
 */

const ROLE_NAMES = ['viewer', 'approver', 'admin'] as const;

const role = z.enum(ROLE_NAMES, { error: 'must be viewer, approver or admin' });

export { MIN_PASSWORD } from '@/lib/auth/password-rules';

export const invitationInput = z.strictObject({
  email: z
    .email({ error: 'must be an email address like name@example.com' })
    .max(254, 'must be at most 254 characters'),
  name: z
    .string({ error: 'must be a name' })
    .trim()
    .min(1, 'must not be empty')
    .max(100, 'must be at most 100 characters'),
  role,
});

export type InvitationInput = z.infer<typeof invitationInput>;

/** `POST /api/v1/admin/members`: invite someone by email. */
export const invitationRequest: RequestBody<InvitationInput> = {
  schema: invitationInput,
  code: 'invalid_invitation',
  message: 'The invitation is not valid: send {"email", "name", "role": "viewer" | "approver" | "admin"}.',
};

export const roleChangeInput = z.strictObject({ role });

export type RoleChange = z.infer<typeof roleChangeInput>;

/** `PATCH /api/v1/admin/members/:userId`. */
export const roleChangeRequest: RequestBody<RoleChange> = {
  schema: roleChangeInput,
  code: 'invalid_role_change',
  message: 'Send {"role": "viewer" | "approver" | "admin"}.',
};

/** `DELETE /api/v1/admin/members/:userId` and `DELETE …/members/invitations/:id`: the id says it all. */
export const deletionRequest = noFields('invalid_deletion', 'A deletion takes no fields; send {} or no body.');

/**
 * Accepting an invitation: the token from the link and, signed out, the code emailed to the
 * invited address with the password its owner chooses, or (when single sign-on is configured)
 * `sso: true`; signed in as the invited address, neither.
 */
export const acceptInput = z
  .strictObject({
    token: z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters'),
    code: z
      .string()
      .regex(/^\d{6}$/, 'must be the six digits from the email')
      .optional(),
    password: z
      .string()
      .min(MIN_PASSWORD, `must be at least ${MIN_PASSWORD} characters`)
      .max(MAX_PASSWORD, `must be at most ${MAX_PASSWORD} characters`)
      .optional(),
    sso: z.literal(true, { error: 'must be true when present' }).optional(),
  })
  .refine((value) => !(value.password !== undefined && value.sso), {
    path: ['sso'],
    message: 'choose a password or single sign-on, not both',
  })
  .refine((value) => !(value.code !== undefined && value.sso), {
    path: ['sso'],
    message: 'single sign-on proves the address itself; send no code with it',
  })
  .refine((value) => value.code === undefined || value.password !== undefined, {
    path: ['password'],
    message: 'choose a password to go with the code',
  });

export type AcceptInput = z.infer<typeof acceptInput>;

/** `POST /api/v1/invitations/accept`. */
export const acceptRequest: RequestBody<AcceptInput> = {
  schema: acceptInput,
  code: 'invalid_acceptance',
  message:
    `Send {"token", "code"} with a "password" of ${MIN_PASSWORD} to ${MAX_PASSWORD} characters, or {"token", ` +
    `"sso": true}; signed in, {"token"} alone.`,
};

export const invitationCodeInput = z.strictObject({
  token: z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters'),
});

export type InvitationCodeInput = z.infer<typeof invitationCodeInput>;

/** `POST /api/v1/invitations/code`: email a code to the invited address. */
export const invitationCodeRequest: RequestBody<InvitationCodeInput> = {
  schema: invitationCodeInput,
  code: 'invalid_code_request',
  message: 'Send {"token"}: the code goes to the address the invitation names.',
};

/** `POST /api/v1/account/email-code`: send a code to the signed-in person's address. */
export const emailCodeRequest = noFields(
  'invalid_code_request',
  'Asking for a code takes no fields; send {} or no body.',
);

export const emailCodeCheckInput = z.strictObject({
  code: z.string().regex(/^\d{6}$/, 'must be the six digits from the email'),
  /** Needed for an account an invitation link made: proving its address removes the password set before. */
  password: z
    .string()
    .min(MIN_PASSWORD, `must be at least ${MIN_PASSWORD} characters`)
    .max(MAX_PASSWORD, `must be at most ${MAX_PASSWORD} characters`)
    .optional(),
});

export type EmailCodeCheck = z.infer<typeof emailCodeCheckInput>;

/** `POST /api/v1/account/email-code/verify`. */
export const emailCodeCheckRequest: RequestBody<EmailCodeCheck> = {
  schema: emailCodeCheckInput,
  code: 'invalid_code',
  message:
    'Send {"code": "<the six digits from the email>"}, with a new "password" for an account an invitation link made.',
};
