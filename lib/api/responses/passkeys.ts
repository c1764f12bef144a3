import { z } from 'zod';
import { decisionStatementSchema } from '@/lib/passkeys/requests';

/** The answers of the passkey routes (docs/passkeys.md): names and dates, never key material. */

export const passkeyViewSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable().describe('When it last signed a decision.'),
});

export const passkeyListSchema = z.strictObject({
  passkeys: z.array(passkeyViewSchema),
  hostProblem: z
    .strictObject({ code: z.literal('passkey_host'), message: z.string(), useInstead: z.string().optional() })
    .nullable()
    .describe(
      'Why passkeys cannot be used at this address (an IP address is no relying party), with the address on the ' +
        'loopback host name to use instead.',
    ),
});

export const passkeyAnswerSchema = z.strictObject({ passkey: passkeyViewSchema });

export const passkeyMemberListSchema = z.strictObject({ passkeys: z.array(passkeyViewSchema) });

/**
 * WebAuthn's options as @simplewebauthn/server writes them, for `navigator.credentials.create()`/`.get()` (via
 * @simplewebauthn/browser).
 */
const webAuthnOptions = z.object({ challenge: z.string(), timeout: z.number().optional() }).loose();

export const registrationOptionsSchema = webAuthnOptions.describe(
  'PublicKeyCredentialCreationOptionsJSON: user verification required, the relying party is APP_URL’s host.',
);

export const decisionChallengeSchema = z.strictObject({
  statement: decisionStatementSchema.describe(
    'What the person signs: its RFC 8785 text’s SHA-256 is `options.challenge`.',
  ),
  options: webAuthnOptions.describe(
    'PublicKeyCredentialRequestOptionsJSON for the person’s passkeys, user verification required.',
  ),
});

export const passkeySettingsAnswerSchema = z.strictObject({
  requirePasskeys: z.boolean().describe('Whether every approval in the tenant must now be signed with a passkey.'),
  changed: z.boolean().describe('false when the setting already was so (nothing was written or audited).'),
});

export type PasskeyList = z.infer<typeof passkeyListSchema>;
export type PasskeyAnswer = z.infer<typeof passkeyAnswerSchema>;
export type DecisionChallenge = z.infer<typeof decisionChallengeSchema>;
export type PasskeySettingsAnswer = z.infer<typeof passkeySettingsAnswerSchema>;
