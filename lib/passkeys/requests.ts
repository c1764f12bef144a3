import { z } from 'zod';
import { noFields, requestBody } from '@/lib/input/request-body';

/**
 * The request bodies of passkeys (docs/passkeys.md): registering one, the challenge of a signed
 * decision, and the statement and assertion a signed decision carries. Only zod here, so client
 * components may import it. The WebAuthn responses are the browser's JSON (base64url fields, as
 * @simplewebauthn/browser sends them); the server library checks their insides.
 */

const base64url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+$/, 'base64url');

/** A passkey's name as the person calls it (“YubiKey 5”). */
export const passkeyNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[^\p{Cc}\p{Cf}]+$/u, 'no control or invisible characters');

const credentialFields = {
  id: base64url(1400),
  rawId: base64url(1400),
  type: z.literal('public-key'),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
};

/**
 * A browser answers only the extensions the options asked for: registration asks `credProps`
 * (@simplewebauthn/server always adds it), a signed decision asks none.
 */
const registrationExtensions = z
  .strictObject({ credProps: z.strictObject({ rk: z.boolean().optional() }).optional() })
  .default({});
const authenticationExtensions = z.strictObject({}).default({});

export const registrationResponseSchema = z.strictObject({
  ...credentialFields,
  clientExtensionResults: registrationExtensions,
  response: z.strictObject({
    clientDataJSON: base64url(8192),
    attestationObject: base64url(32768),
    // WebAuthn Level 3's getters, which @simplewebauthn/browser adds where the browser has them;
    // the server reads the same facts from the attestation object, so these are only checked for shape.
    authenticatorData: base64url(32768).optional(),
    publicKey: base64url(4096).optional(),
    publicKeyAlgorithm: z.int().optional(),
    transports: z.array(z.string().max(32)).max(10).optional(),
  }),
});

export const authenticationResponseSchema = z.strictObject({
  ...credentialFields,
  clientExtensionResults: authenticationExtensions,
  response: z.strictObject({
    clientDataJSON: base64url(8192),
    authenticatorData: base64url(8192),
    signature: base64url(2048),
    userHandle: base64url(1024).optional(),
  }),
});

export type AuthenticationResponse = z.infer<typeof authenticationResponseSchema>;

/**
 * What a person signs with their passkey when they decide: this proposal, this decision, the
 * stored payload hash, the revision it replaced, who decides, and a window (lib/passkeys/statement.ts).
 */
export const decisionStatementSchema = z.strictObject({
  proposalId: z.string().min(1).max(100),
  tenantId: z.string().min(1).max(100),
  decision: z.enum(['approve', 'reject']),
  payloadHash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  revisionOf: z.string().min(1).max(100).nullable(),
  userId: z.string().min(1).max(100),
  issuedAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  nonce: z.string().regex(/^[A-Za-z0-9_-]{22,64}$/),
});

export type DecisionStatement = z.infer<typeof decisionStatementSchema>;

/** A decision's signature: the statement the server issued, and the authenticator's assertion over it. */
export const signedDecisionSchema = z.strictObject({
  statement: decisionStatementSchema,
  response: authenticationResponseSchema,
});

export type SignedDecision = z.infer<typeof signedDecisionSchema>;

/** `POST /api/v1/me/passkeys`: `{name, response}`. */
export const passkeyRegisterRequest = requestBody(
  z.strictObject({ name: passkeyNameSchema, response: registrationResponseSchema }),
  'invalid_passkey',
  'Send {"name": "…", "response": {…}} with a name of 1–64 characters and the browser’s registration response.',
);

export type PasskeyRegisterRequest = z.infer<typeof passkeyRegisterRequest.schema>;

/** `POST /api/v1/me/passkeys/options`. */
export const passkeyOptionsRequest = noFields(
  'invalid_passkey_options',
  'Registration options take no fields; send {} or no body.',
);

/** `POST /api/v1/proposals/:id/decisions/challenge`: `{decision}`. */
export const decisionChallengeRequest = requestBody(
  z.strictObject({ decision: z.enum(['approve', 'reject']) }),
  'invalid_decision_challenge',
  'Send {"decision": "approve"} or {"decision": "reject"}.',
);

export type DecisionChallengeRequest = z.infer<typeof decisionChallengeRequest.schema>;

/** `DELETE /api/v1/me/passkeys/:id` and `DELETE /api/v1/admin/passkeys/:id`. */
export const passkeyRemoveRequest = noFields(
  'invalid_passkey_removal',
  'Removing a passkey takes no fields; send {} or no body.',
);

/** `PUT /api/v1/admin/passkeys/settings`: `{requirePasskeys}`. */
export const passkeySettingsRequest = requestBody(
  z.strictObject({ requirePasskeys: z.boolean() }),
  'invalid_passkey_settings',
  'Send {"requirePasskeys": true} or {"requirePasskeys": false}.',
);

export type PasskeySettingsRequest = z.infer<typeof passkeySettingsRequest.schema>;
