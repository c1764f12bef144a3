/**
 * Test fixture for the Python executor helpers (clients/python/tests/test_executor*.py): signs
 * commands with Countersign's own code (lib/signing/keys.ts, lib/commands/mint.ts,
 * lib/payload-hash.ts), valid ones and tampered ones, and request proofs with the server's own
 * signer (lib/signing/request-proof.ts), and prints them as JSON on stdout:
 * {now, issuer, jwks, signingJwk, commands: [{name, scope, jws, claims?, code}],
 * proofs: [{url, method, body, signature}]} where `code` is the refusal an executor must answer
 * (null: it verifies). Run from the repo root:
 * `node_modules/.bin/tsx clients/python/tests/sign_commands.ts <now-seconds>`.
 * The keys are fresh on every run; `signingJwk` is printed so the Python tests can sign request
 * proofs with the same key the JWKS lists.
 */
import { type CompactJWSHeaderParameters, CompactSign } from 'jose';
import { type CommandClaims, idempotencyKeyFor, signCommand } from '@/lib/commands/mint';
import { payloadHash } from '@/lib/payload-hash';
import { generateSigningJwk, loadCommandKeys, publicJwk, type SigningKey } from '@/lib/signing/keys';
import { type SignedRequest, signRequest } from '@/lib/signing/request-proof';

const ISSUER = 'https://countersign.test';
const now = Number(process.argv[2]);
if (!Number.isInteger(now)) throw new Error('usage: sign_commands.ts <now-seconds>');

// Keys whose JCS order (UTF-16 code units) differs from code point order, numbers JCS formats
// its own way, escapes and non-ASCII text: a hash that only sorted keys would differ here.
const ARGS = {
  orderId: 'ord_1842',
  amountMinor: 1200,
  currency: 'EUR',
  reason: 'Café filter \u2615 arrived "broken"\n\t\u0001',
  ratio: 0.1,
  large: 1e21,
  tiny: 5e-7,
  whole: 4.0,
  nested: { z: [true, false, null], a: { '\u20ac': 1, '\r': 2 } },
  '\ufb33': 'hebrew presentation form',
  '\ud83d\ude00': 'emoji, first in UTF-16 order',
};

function claimsFor(scope: string, overrides: Partial<CommandClaims> = {}): CommandClaims {
  const base = {
    tenant: 'acme',
    action: scope === 'payments' ? 'issue_refund' : 'hold_stock',
    contractVersion: 2,
    args: ARGS as Record<string, unknown>,
    evidenceRefs: ['ticket_message_73', 'ticket_message_74'],
  };
  const merged = { ...base, ...overrides };
  return {
    iss: ISSUER,
    aud: `executor:${scope}`,
    sub: 'prp_python_fixture',
    jti: `cmd_${scope}_${Math.random().toString(36).slice(2, 10)}`,
    iat: now - 10,
    nbf: now - 10,
    exp: now + 290,
    payloadHash: payloadHash({
      action: merged.action,
      contractVersion: merged.contractVersion,
      tenantId: merged.tenant,
      args: merged.args,
      evidenceRefs: merged.evidenceRefs,
    }),
    idempotencyKey: idempotencyKeyFor('prp_python_fixture'),
    ...merged,
  } as CommandClaims;
}

/** Signs arbitrary claims under an arbitrary protected header (for the tampered variants). */
function signRaw(claims: object, key: SigningKey, header: CompactJWSHeaderParameters): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(claims))).setProtectedHeader(header).sign(key.key);
}

async function main(): Promise<void> {
  const keys = await loadCommandKeys([await generateSigningJwk()]);
  const signingJwk = (await generateSigningJwk()) as Record<string, unknown>;
  const ownKeys = await loadCommandKeys([signingJwk as never]);
  const stranger = await loadCommandKeys([await generateSigningJwk()]);
  // The JWKS lists two keys (rotation): commands signed by either verify.
  const jwks = { keys: [publicJwk(signingJwk as never), ...keys.jwks] };
  const signer = ownKeys.signing;
  const valid = claimsFor('payments');
  const header = { alg: 'EdDSA', kid: signer.kid, typ: 'countersign-command+jwt' };
  const validJws = await signCommand(valid, signer);
  const [h, p, s] = validJws.split('.') as [string, string, string];
  const flipped = `${s.slice(0, -2)}${s.at(-2) === 'A' ? 'B' : 'A'}${s.at(-1)}`;
  const hmac = await new CompactSign(new TextEncoder().encode(JSON.stringify(valid)))
    .setProtectedHeader({ alg: 'HS256', kid: signer.kid, typ: 'countersign-command+jwt' })
    .sign(new TextEncoder().encode('a shared secret of thirty-two bytes!'));
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const withoutKey: Partial<CommandClaims> = claimsFor('payments');
  delete withoutKey.idempotencyKey;

  const commands = [
    { name: 'valid payments command', scope: 'payments', jws: validJws, claims: valid, code: null },
    {
      name: 'valid command signed by the second key of the set',
      scope: 'inventory',
      jws: await signCommand(claimsFor('inventory'), keys.signing),
      code: null,
    },
    { name: 'not compact', scope: 'payments', jws: 'not-a-jws', code: 'malformed' },
    { name: 'header is not JSON', scope: 'payments', jws: `${Buffer.from('{').toString('base64url')}.${p}.${s}`, code: 'malformed' },
    { name: 'alg none', scope: 'payments', jws: `${b64({ ...header, alg: 'none' })}.${p}.`, code: 'alg_not_allowed' },
    { name: 'alg HS256 with a shared secret', scope: 'payments', jws: hmac, code: 'alg_not_allowed' },
    ...(['jku', 'jwk', 'x5u'] as const).map((name) => ({
      name: `a ${name} header`,
      scope: 'payments',
      jws: '',
      header: { ...header, [name]: name === 'jwk' ? publicJwk(signingJwk as never) : 'https://attacker.test/keys' },
      code: 'unknown_kid',
    })),
    { name: 'a kid the set does not hold', scope: 'payments', jws: await signCommand(valid, stranger.signing), code: 'unknown_kid' },
    { name: 'no kid', scope: 'payments', jws: await signRaw(valid, signer, { alg: 'EdDSA', typ: 'countersign-command+jwt' }), code: 'unknown_kid' },
    { name: 'signature altered', scope: 'payments', jws: `${h}.${p}.${flipped}`, code: 'bad_signature' },
    {
      name: 'claims swapped under the original signature',
      scope: 'payments',
      jws: `${h}.${b64({ ...valid, args: { ...ARGS, amountMinor: 999_999 } })}.${s}`,
      code: 'bad_signature',
    },
    { name: 'typ of a request proof', scope: 'payments', jws: await signRaw(valid, signer, { ...header, typ: 'countersign-request+jwt' }), code: 'wrong_type' },
    { name: 'no typ', scope: 'payments', jws: await signRaw(valid, signer, { alg: 'EdDSA', kid: signer.kid }), code: 'wrong_type' },
    { name: 'claims are not JSON', scope: 'payments', jws: '', rawPayload: 'not json', code: 'malformed' },
    { name: 'a claim missing', scope: 'payments', jws: await signRaw(withoutKey, signer, header), code: 'malformed' },
    { name: 'another issuer', scope: 'payments', jws: await signCommand(claimsFor('payments', { iss: 'https://elsewhere.test' }), signer), code: 'wrong_issuer' },
    { name: 'another executor', scope: 'payments', jws: await signCommand(claimsFor('inventory'), signer), code: 'wrong_audience' },
    {
      name: 'expired beyond the skew',
      scope: 'payments',
      jws: await signCommand(claimsFor('payments', { iat: now - 400, nbf: now - 400, exp: now - 100 }), signer),
      code: 'expired',
    },
    {
      name: 'expired within the skew',
      scope: 'payments',
      jws: await signCommand(claimsFor('payments', { iat: now - 310, nbf: now - 310, exp: now - 10 }), signer),
      code: null,
    },
    {
      name: 'a lifetime longer than five minutes',
      scope: 'payments',
      jws: await signCommand(claimsFor('payments', { iat: now, nbf: now, exp: now + 3600 }), signer),
      code: 'expired',
    },
    {
      name: 'not valid yet beyond the skew',
      scope: 'payments',
      jws: await signCommand(claimsFor('payments', { iat: now + 60, nbf: now + 60, exp: now + 300 }), signer),
      code: 'not_yet_valid',
    },
    {
      name: 'not valid yet within the skew',
      scope: 'payments',
      jws: await signCommand(claimsFor('payments', { iat: now + 20, nbf: now + 20, exp: now + 300 }), signer),
      code: null,
    },
    {
      name: 'arguments changed after hashing',
      scope: 'payments',
      jws: await signCommand({ ...valid, args: { ...ARGS, amountMinor: 999_999 } }, signer),
      code: 'hash_mismatch',
    },
    {
      name: 'tenant changed after hashing',
      scope: 'payments',
      jws: await signCommand({ ...valid, tenant: 'globex' }, signer),
      code: 'hash_mismatch',
    },
  ];
  for (const command of commands as Array<Record<string, unknown>>) {
    if (command.header) command.jws = await signRaw(valid, signer, command.header as CompactJWSHeaderParameters);
    if (command.rawPayload) {
      command.jws = await new CompactSign(new TextEncoder().encode(command.rawPayload as string))
        .setProtectedHeader(header)
        .sign(signer.key);
    }
    delete command.header;
    delete command.rawPayload;
  }
  // What Countersign sends an executor: the command, then reconciliation's GET.
  const requests: SignedRequest[] = [
    { url: 'https://svc.test/actions/refund/execute', method: 'POST', body: validJws },
    { url: 'https://svc.test/actions/refund/execute/cmd_python_fixture', method: 'GET', body: '' },
  ];
  const proofs = await Promise.all(
    requests.map(async (request) => ({
      ...request,
      signature: await signRequest(request, signer, ISSUER, new Date(now * 1000)),
    })),
  );
  process.stdout.write(JSON.stringify({ now, issuer: ISSUER, jwks, signingJwk, commands, proofs }));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
