import { describe, expect, it } from 'vitest';
import { holdStock } from '@/lib/actions/hold_stock';
import { issueRefund } from '@/lib/actions/issue_refund';
import { generateSigningJwk, loadCommandKeys, parseKeySet, publicJwk, retireKey, rotateKeySet } from './keys';

describe('signing keys', () => {
  it('rotation puts a new key first (it signs) and keeps the old ones (they verify)', async () => {
    const old = await generateSigningJwk();
    const rotated = await rotateKeySet([old]);
    expect(rotated.map((key) => key.kid)).toEqual([rotated[0]!.kid, old.kid]);
    expect(rotated[0]!.kid).not.toBe(old.kid);
    const loaded = await loadCommandKeys(rotated);
    expect(loaded.signing.kid).toBe(rotated[0]!.kid);
    expect([...loaded.verification.keys()]).toEqual([rotated[0]!.kid, old.kid]);
  });

  it('retirement removes one kid, refuses an unknown kid, and never leaves zero keys', async () => {
    const [a, b] = [await generateSigningJwk(), await generateSigningJwk()];
    expect(retireKey([a, b], a.kid)).toEqual([b]);
    expect(() => retireKey([a, b], 'nope')).toThrow(/no key with kid/);
    expect(() => retireKey([a], a.kid)).toThrow(/only key/);
  });

  it('refuses key sets that are empty, not Ed25519, or repeat a kid', async () => {
    const a = await generateSigningJwk();
    expect(() => parseKeySet([])).toThrow();
    expect(() => parseKeySet([{ ...a, crv: 'P-256' }])).toThrow();
    expect(() => parseKeySet([a, a])).toThrow(/twice/);
  });

  it('the public JWK never carries d', async () => {
    const key = publicJwk(await generateSigningJwk());
    expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
  });
});

describe('receipt validation (schema and request)', () => {
  const refundArgs = { orderId: 'ord_1842', amountMinor: 100, currency: 'USD', reason: 'x' };
  const refund = {
    id: 're_abc',
    orderId: 'ord_1842',
    amountMinor: 100,
    currency: 'USD',
    idempotencyKey: 'cs.prp_1',
    createdAt: '2026-11-30T06:00:00.000Z',
  };
  it('accepts only the refund that was asked for', () => {
    expect(issueRefund.validateReceipt(refund, refundArgs, {}, 'cs.prp_1')).toEqual({ ok: true, receipt: refund });
    for (const bad of [
      { ...refund, orderId: 'ord_1843' },
      { ...refund, amountMinor: 101 },
      { ...refund, currency: 'EUR' },
      { ...refund, idempotencyKey: 'cs.prp_2' },
      { ...refund, extra: true },
      { ...refund, id: 'hold_1' },
      'not an object',
    ]) {
      expect(issueRefund.validateReceipt(bad, refundArgs, {}, 'cs.prp_1').ok).toBe(false);
    }
  });

  const hold = {
    id: 'hold_abc',
    sku: 'filter-blue',
    quantity: 2,
    warehouse: 'north',
    idempotencyKey: 'cs.prp_1',
    createdAt: '2026-11-30T06:00:00.000Z',
  };
  it('accepts only the hold that was asked for, in the catalog warehouse', () => {
    const args = { sku: 'filter-blue', quantity: 2 };
    expect(holdStock.validateReceipt(hold, args, { warehouse: 'north' }, 'cs.prp_1')).toEqual({
      ok: true,
      receipt: hold,
    });
    expect(
      holdStock.validateReceipt({ ...hold, sku: 'filter-gray' }, args, { warehouse: 'north' }, 'cs.prp_1').ok,
    ).toBe(false);
    expect(holdStock.validateReceipt({ ...hold, quantity: 3 }, args, { warehouse: 'north' }, 'cs.prp_1').ok).toBe(
      false,
    );
    expect(
      holdStock.validateReceipt({ ...hold, warehouse: 'south' }, args, { warehouse: 'north' }, 'cs.prp_1').ok,
    ).toBe(false);
  });
});
