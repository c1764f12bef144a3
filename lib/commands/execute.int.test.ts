import { eq } from 'drizzle-orm';
import { base64url, type CryptoKey, decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { commands, decisions, executions, outbox, proposals } from '@/db/schema';
import { issueRefund } from '@/lib/actions/issue_refund';
import { issueRefundArgsV1 } from '@/lib/actions/issue_refund/contract';
import { decide } from '@/lib/decisions/decide';
import { Refusal } from '@/lib/errors/refusal';
import { newId } from '@/lib/ids';
import { payloadHash } from '@/lib/payload-hash';
import { commandKeys, generateSigningJwk, loadCommandKeys, retireKey, rotateKeySet } from '@/lib/signing/keys';
import type { SystemsWriteClient } from '@/lib/systems/client';
import { type CommandRow, setupCommandWorld } from '@/test/fixtures/commands';
import { auditRowsFor, proposalRow } from '@/test/queries';
import { COMMAND_TYP, type CommandClaims, commandIssuer, mintCommand } from './mint';

const w = setupCommandWorld();

async function expectRefusal(promise: Promise<unknown>, code: string) {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected refusal ${code}`).toBeInstanceOf(Refusal);
  expect((caught as Refusal).code).toBe(code);
}

const claimsOf = (jws: string) => decodeJwt(jws) as unknown as CommandClaims;

function signWith(
  claims: Partial<CommandClaims> & Record<string, unknown>,
  key: CryptoKey | Uint8Array,
  header: Record<string, unknown>,
) {
  return new SignJWT({ ...claims }).setProtectedHeader(header as { alg: string }).sign(key);
}

const b64 = (value: unknown) => base64url.encode(JSON.stringify(value));

describe('minting on approval', () => {
  it('writes the command row, the command.minted outbox row and audit event in the approving transaction', async () => {
    const { proposal, command } = await w.approvedRefund(150);
    expect(command).toMatchObject({
      tenantId: 'acme',
      scope: 'payments',
      idempotencyKey: `cs.${proposal.id}`,
      consumedAt: null,
    });
    expect(command.id).toMatch(/^cmd_/);
    const header = decodeProtectedHeader(command.jws);
    expect(header).toEqual({ alg: 'EdDSA', kid: command.kid, typ: COMMAND_TYP });
    const claims = claimsOf(command.jws);
    expect(claims).toMatchObject({
      iss: commandIssuer(),
      aud: 'executor:payments',
      sub: proposal.id,
      jti: command.id,
      tenant: 'acme',
      action: 'issue_refund',
      contractVersion: 1,
      args: { orderId: 'ord_1842', amountMinor: 150, currency: 'USD', reason: 'Customer requested a refund' },
      evidenceRefs: [],
      payloadHash: proposal.payloadHash,
      idempotencyKey: `cs.${proposal.id}`,
    });
    expect(claims.nbf).toBe(claims.iat);
    expect(claims.exp - claims.iat).toBe(300);
    expect(command.expiresAt.getTime()).toBe(claims.exp * 1000);

    const rows = await w.t.db.select().from(outbox).where(eq(outbox.proposalId, proposal.id));
    expect(rows.find((row) => row.topic === 'command.minted')?.body).toEqual({
      commandId: command.id,
      scope: 'payments',
    });
    expect((await auditRowsFor(w.t.db, proposal.id)).map((row) => row.type)).toEqual([
      'proposal.created',
      'proposal.approved',
      'command.minted',
    ]);
  });

  it('mints nothing while approvals are missing (a refund over 100.00 needs two)', async () => {
    const proposal = await w.propose('issue_refund', {
      orderId: 'ord_1843',
      amountMinor: 15_000,
      currency: 'EUR',
      reason: 'Damaged',
    });
    await decide(w.t.db, w.systems.client, {
      userId: w.world.userId('alice'),
      proposalId: proposal.id,
      request: { decision: 'approve', payloadHash: proposal.payloadHash },
    });
    expect(await w.t.db.select().from(commands).where(eq(commands.proposalId, proposal.id))).toEqual([]);
    await decide(w.t.db, w.systems.client, {
      userId: w.world.userId('bob'),
      proposalId: proposal.id,
      request: { decision: 'approve', payloadHash: proposal.payloadHash },
    });
    expect(await w.commandOf(proposal.id)).toMatchObject({ scope: 'payments' });
  });
});

describe('execution', () => {
  it('a valid command makes one refund: succeeded with the validated receipt, recorded and audited', async () => {
    const { proposal, command } = await w.approvedRefund(200);
    const answer = await w.execute(command.jws);
    expect(answer).toMatchObject({ status: 'succeeded', commandId: command.id, proposalId: proposal.id });
    expect(answer.receipt).toMatchObject({
      orderId: 'ord_1842',
      amountMinor: 200,
      currency: 'USD',
      idempotencyKey: `cs.${proposal.id}`,
    });
    const refunds = await w.orderRefunds();
    expect(refunds.filter((refund) => refund.idempotencyKey === `cs.${proposal.id}`)).toHaveLength(1);

    expect((await proposalRow(w.t.db, proposal.id))?.status).toBe('succeeded');
    const [execution] = await w.executionsOf(proposal.id);
    expect(execution).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      commandId: command.id,
      errorCode: null,
      nextCheckAt: null,
      receipt: answer.receipt,
    });
    const [consumed] = await w.t.db.select().from(commands).where(eq(commands.id, command.id));
    expect(consumed?.consumedAt).not.toBeNull();
    const audit = await auditRowsFor(w.t.db, proposal.id);
    expect(audit.map((row) => row.type)).toEqual([
      'proposal.created',
      'proposal.approved',
      'command.minted',
      'execution.started',
      'execution.succeeded',
    ]);
    expect(JSON.stringify(audit.slice(3))).not.toContain('amountMinor');
    const topics = (await w.t.db.select().from(outbox).where(eq(outbox.proposalId, proposal.id))).map(
      (row) => row.topic,
    );
    expect(topics).toContain('execution.succeeded');
  });

  it('a hold runs through the inventory executor with the catalog warehouse', async () => {
    const { proposal, command } = await w.approvedHold(1);
    const answer = await w.execute(command.jws, 'inventory');
    expect(answer).toMatchObject({
      status: 'succeeded',
      receipt: { sku: 'filter-blue', quantity: 1, warehouse: 'north', idempotencyKey: `cs.${proposal.id}` },
    });
    expect((await w.skuHolds()).filter((hold) => hold.idempotencyKey === `cs.${proposal.id}`)).toHaveLength(1);
  });

  it('a replay answers the recorded outcome and makes no second refund', async () => {
    const { proposal, command } = await w.approvedRefund(100);
    const first = await w.execute(command.jws);
    const second = await w.execute(command.jws);
    const third = await w.execute(command.jws);
    expect(second).toEqual(first);
    expect(third).toEqual(first);
    expect((await w.orderRefunds()).filter((refund) => refund.idempotencyKey === `cs.${proposal.id}`)).toHaveLength(1);
    expect(await w.executionsOf(proposal.id)).toHaveLength(1);
  });

  it('a precondition that no longer holds (the balance shrank) fails without any write', async () => {
    const { proposal, command } = await w.approvedRefund(5_000, 'ord_9001', 'USD', 'globex');
    await w.refundDirectly('ord_9001', 96_000, 'USD');
    const before = await w.orderRefunds('ord_9001');
    const answer = await w.execute(command.jws);
    expect(answer).toMatchObject({ status: 'failed', errorCode: 'precondition_failed' });
    expect(answer.reason).toMatch(/exceeds_refundable_balance/);
    expect(await w.orderRefunds('ord_9001')).toEqual(before);
    expect(await proposalRow(w.t.db, proposal.id)).toMatchObject({ status: 'failed', statusReason: answer.reason });
    expect(await w.executionsOf(proposal.id)).toMatchObject([
      { status: 'failed', errorCode: 'precondition_failed', attempts: 1 },
    ]);
    expect(await w.execute(command.jws)).toEqual(answer);
  });

  it('deny wins: a command for a proposal rejected after approval is recorded as failed, with no effect', async () => {
    const { proposal, command } = await w.approvedRefund(100);
    await decide(w.t.db, w.systems.client, {
      userId: w.world.userId('bob'),
      proposalId: proposal.id,
      request: { decision: 'reject', payloadHash: proposal.payloadHash, reason: 'Wrong order' },
    });
    const before = await w.orderRefunds();
    const answer = await w.execute(command.jws);
    expect(answer).toMatchObject({ status: 'failed', errorCode: 'proposal_not_approved' });
    expect(await w.orderRefunds()).toEqual(before);
    expect((await proposalRow(w.t.db, proposal.id))?.status).toBe('rejected');
    expect(await w.executionsOf(proposal.id)).toMatchObject([{ status: 'failed', errorCode: 'proposal_not_approved' }]);
  });

  it('a definite refusal by the system of record (422) is failed with its code', async () => {
    const { proposal, command } = await w.approvedRefund(100);
    const refusing: SystemsWriteClient = {
      scope: 'payments',
      write: () =>
        Promise.resolve({
          kind: 'refused',
          status: 422,
          code: 'exceeds_refundable_balance',
          message: 'No balance left.',
        }),
      lookup: () => Promise.resolve({ found: false }),
    };
    const answer = await w.execute(command.jws, 'payments', { writeClient: refusing });
    expect(answer).toMatchObject({ status: 'failed', errorCode: 'exceeds_refundable_balance' });
    expect((await proposalRow(w.t.db, proposal.id))?.status).toBe('failed');
  });
});

describe('faults in the system of record', () => {
  const cases = [
    { mode: 'timeout_after_commit', errorCode: 'timeout', committed: true },
    { mode: 'timeout_before_commit', errorCode: 'timeout', committed: false },
    { mode: 'malformed', errorCode: 'malformed_response', committed: true },
    { mode: 'wrong_resource', errorCode: 'receipt_mismatch', committed: true },
    { mode: 'error_500', errorCode: 'system_error', committed: false },
  ] as const;

  it.each(cases)('$mode → outcome_unknown ($errorCode), never succeeded', async ({ mode, errorCode, committed }) => {
    const { proposal, command } = await w.approvedRefund(100);
    await w.fault('refunds', mode);
    const answer = await w.execute(command.jws, 'payments', { deadlineMs: 500 });
    expect(answer).toMatchObject({ status: 'outcome_unknown', errorCode });
    expect(answer.receipt).toBeUndefined();
    const mine = (await w.orderRefunds()).filter((refund) => refund.idempotencyKey === `cs.${proposal.id}`);
    expect(mine).toHaveLength(committed ? 1 : 0);

    expect((await proposalRow(w.t.db, proposal.id))?.status).toBe('outcome_unknown');
    const [execution] = await w.executionsOf(proposal.id);
    expect(execution).toMatchObject({ status: 'outcome_unknown', errorCode, attempts: 1, receipt: null });
    expect(execution!.nextCheckAt!.getTime() - execution!.updatedAt.getTime()).toBe(30_000);
    expect((await auditRowsFor(w.t.db, proposal.id)).at(-1)).toMatchObject({
      type: 'execution.outcome_unknown',
      reasonCode: errorCode,
    });

    // What reconciliation will see: the look-up by idempotency key, and the receipt check.
    const lookup = await issueRefund.lookupReceipt({
      client: () => w.writeClient('payments'),
      idempotencyKey: `cs.${proposal.id}`,
      commandId: 'cmd_unused',
    });
    expect(lookup.found).toBe(committed);
    if (lookup.found) {
      const args = issueRefundArgsV1.parse(proposal.payload.args);
      expect(issueRefund.validateReceipt(lookup.receipt, args, proposal.facts, `cs.${proposal.id}`)).toMatchObject({
        ok: true,
      });
      expect(
        issueRefund.validateReceipt(lookup.receipt, { ...args, amountMinor: 101 }, proposal.facts, `cs.${proposal.id}`),
      ).toMatchObject({ ok: false });
    }
    // A replay still answers the recorded outcome and writes nothing.
    expect(await w.execute(command.jws)).toEqual(answer);
    expect((await w.orderRefunds()).filter((refund) => refund.idempotencyKey === `cs.${proposal.id}`)).toHaveLength(
      committed ? 1 : 0,
    );
  });
});

describe('forged and altered commands are refused before any effect', () => {
  type Forge = (command: CommandRow, signing: { kid: string; key: CryptoKey }) => Promise<string> | string;
  const split = (jws: string) => jws.split('.') as [string, string, string];
  const realHeader = (kid: string) => ({ alg: 'EdDSA', kid, typ: COMMAND_TYP });
  const now = () => Math.floor(Date.now() / 1000);

  const table: { name: string; code: string; forge: Forge; scope?: 'payments' | 'inventory' }[] = [
    { name: 'not a compact JWS', code: 'malformed', forge: () => 'this is not a token' },
    {
      name: 'alg none',
      code: 'alg_not_allowed',
      forge: (command) => `${b64({ alg: 'none', kid: command.kid, typ: COMMAND_TYP })}.${split(command.jws)[1]}.`,
    },
    {
      name: 'HS256 with the public key as the secret',
      code: 'alg_not_allowed',
      forge: async (command) => {
        const [jwk] = (await commandKeys()).jwks;
        return signWith(claimsOf(command.jws), new TextEncoder().encode(JSON.stringify(jwk)), {
          alg: 'HS256',
          kid: command.kid,
          typ: COMMAND_TYP,
        });
      },
    },
    {
      name: 'a flipped bit in the signature',
      code: 'bad_signature',
      forge: (command) => {
        const [h, p, s] = split(command.jws);
        const bytes = base64url.decode(s);
        bytes[10] = bytes[10]! ^ 0x01;
        return `${h}.${p}.${base64url.encode(bytes)}`;
      },
    },
    { name: 'a truncated signature', code: 'bad_signature', forge: (command) => command.jws.slice(0, -12) },
    {
      name: 'another audience',
      code: 'wrong_audience',
      forge: (command, key) =>
        signWith({ ...claimsOf(command.jws), aud: 'executor:inventory' }, key.key, realHeader(key.kid)),
    },
    {
      name: 'an action outside the scope',
      code: 'action_not_in_scope',
      forge: (command, key) =>
        signWith({ ...claimsOf(command.jws), action: 'hold_stock' }, key.key, realHeader(key.kid)),
    },
    {
      name: 'the wrong typ',
      code: 'wrong_typ',
      forge: (command, key) => signWith(claimsOf(command.jws), key.key, { ...realHeader(key.kid), typ: 'JWT' }),
    },
    {
      name: 'an unknown kid',
      code: 'unknown_kid',
      forge: async (command) => {
        const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
        return signWith(claimsOf(command.jws), privateKey, realHeader('key-unknown'));
      },
    },
    ...(['jku', 'x5u', 'jwk'] as const).map((name) => ({
      name: `a ${name} header`,
      code: 'key_header_not_allowed',
      forge: async (command: CommandRow, key: { kid: string; key: CryptoKey }) => {
        const value = name === 'jwk' ? (await commandKeys()).jwks[0] : 'https://attacker.test/keys';
        return signWith(claimsOf(command.jws), key.key, { ...realHeader(key.kid), [name]: value });
      },
    })),
    {
      name: 'expired',
      code: 'expired',
      forge: (command, key) =>
        signWith(
          { ...claimsOf(command.jws), iat: now() - 400, nbf: now() - 400, exp: now() - 100 },
          key.key,
          realHeader(key.kid),
        ),
    },
    {
      name: 'nbf in the future',
      code: 'not_yet_valid',
      forge: (command, key) =>
        signWith(
          { ...claimsOf(command.jws), iat: now() + 120, nbf: now() + 120, exp: now() + 400 },
          key.key,
          realHeader(key.kid),
        ),
    },
    {
      name: 'args changed, old hash',
      code: 'hash_mismatch',
      forge: (command, key) => {
        const claims = claimsOf(command.jws);
        return signWith({ ...claims, args: { ...claims.args, amountMinor: 4_999 } }, key.key, realHeader(key.kid));
      },
    },
    {
      name: 'args changed and hash recomputed, old signature',
      code: 'bad_signature',
      forge: (command) => {
        const claims = claimsOf(command.jws);
        const args = { ...claims.args, amountMinor: 4_999 };
        const hash = payloadHash({
          action: claims.action,
          contractVersion: claims.contractVersion,
          tenantId: claims.tenant,
          args,
          evidenceRefs: claims.evidenceRefs,
        });
        const [h, , s] = split(command.jws);
        return `${h}.${b64({ ...claims, args, payloadHash: hash })}.${s}`;
      },
    },
    {
      name: 'signed correctly but never minted (new jti)',
      code: 'unknown_command',
      forge: (command, key) =>
        signWith({ ...claimsOf(command.jws), jti: 'cmd_forged0000000000000' }, key.key, realHeader(key.kid)),
    },
  ];

  it.each(table)('$name → $code', async ({ code, forge, scope }) => {
    const { proposal, command } = await w.approvedRefund(100);
    const signing = (await commandKeys()).signing;
    const forged = await forge(command, signing);
    const before = await w.orderRefunds();
    await expectRefusal(w.execute(forged, scope ?? 'payments'), code);
    expect(await w.orderRefunds()).toEqual(before);
    expect((await proposalRow(w.t.db, proposal.id))?.status).toBe('approved');
    expect(await w.executionsOf(proposal.id)).toEqual([]);
    const [row] = await w.t.db.select().from(commands).where(eq(commands.id, command.id));
    expect(row?.consumedAt).toBeNull();
    // The genuine command still works afterwards: the forgery consumed nothing.
    await expect(w.execute(command.jws)).resolves.toMatchObject({ status: 'succeeded' });
  });

  it('a genuine payments command posted to the inventory executor → wrong_audience', async () => {
    const { command } = await w.approvedRefund(100);
    await expectRefusal(w.execute(command.jws, 'inventory'), 'wrong_audience');
  });

  it('a genuine command after its lifetime → expired', async () => {
    const { command } = await w.approvedRefund(100);
    const later = new Date(command.expiresAt.getTime() + 31_000);
    await expectRefusal(w.execute(command.jws, 'payments', { clock: () => later }), 'expired');
  });
});

describe('key rotation', () => {
  it('a command signed by the old key verifies while both keys are configured, and fails unknown_kid after retirement', async () => {
    const oldJwk = await generateSigningJwk();
    const oldSet = await loadCommandKeys([oldJwk]);
    const rotated = await rotateKeySet([oldJwk]);
    expect(rotated).toHaveLength(2);
    expect(rotated[1]).toEqual(oldJwk);
    const both = await loadCommandKeys(rotated);
    expect(both.signing.kid).not.toBe(oldJwk.kid);
    const retired = await loadCommandKeys(retireKey(rotated, oldJwk.kid));
    expect(() => retireKey([oldJwk], oldJwk.kid)).toThrow(/only key/);

    // A proposal approved while the old key signed: minted with it (Alice's approval is its quorum).
    const proposal = await w.propose('issue_refund', {
      orderId: 'ord_1842',
      amountMinor: 100,
      currency: 'USD',
      reason: 'Rotation',
    });
    const now = new Date();
    await w.t.db.transaction(async (tx) => {
      await tx.insert(decisions).values({
        id: newId('dec'),
        tenantId: 'acme',
        proposalId: proposal.id,
        userId: w.world.userId('alice'),
        decision: 'approve',
        payloadHash: proposal.payloadHash,
      });
      const [approved] = await tx
        .update(proposals)
        .set({ status: 'approved', decidedAt: now })
        .where(eq(proposals.id, proposal.id))
        .returning();
      await mintCommand(tx, approved!, now, oldSet.signing);
    });
    const command = await w.commandOf(proposal.id);
    expect(command.kid).toBe(oldJwk.kid);

    await expectRefusal(w.execute(command.jws, 'payments', { keys: retired.verification }), 'unknown_kid');
    await expect(w.execute(command.jws, 'payments', { keys: both.verification })).resolves.toMatchObject({
      status: 'succeeded',
    });
    // Retired: even the recorded outcome is no longer served for it.
    await expectRefusal(w.execute(command.jws, 'payments', { keys: retired.verification }), 'unknown_kid');
    expect(await w.t.db.select().from(executions).where(eq(executions.proposalId, proposal.id))).toHaveLength(1);
  });

  it('the JWKS lists public parts only', async () => {
    const { jwks } = await commandKeys();
    for (const key of jwks) {
      expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
      expect(key).not.toHaveProperty('d');
    }
  });
});
