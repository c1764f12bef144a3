import { describe, expect, it } from 'vitest';
import { demoCatalog, MAX_DEMO_SCALE, SEEDED_EVIDENCE, SEEDED_ORDERS, SEEDED_SKUS, scaledIds } from './world';

/** The bench world (issue 14): the seeded catalogs plus `scale` acme records of each kind. */

describe('demoCatalog', () => {
  it('at scale 0 is exactly the seeded world', () => {
    const catalog = demoCatalog(0);
    expect([...catalog.orders.values()]).toStrictEqual([...SEEDED_ORDERS]);
    expect([...catalog.skus.values()]).toStrictEqual([...SEEDED_SKUS]);
    expect([...catalog.evidence.values()]).toStrictEqual([...SEEDED_EVIDENCE]);
    expect(demoCatalog()).toStrictEqual(catalog);
  });

  it('adds scale orders, SKUs and tickets for acme after the seeded ones, by id', () => {
    const catalog = demoCatalog(12);
    expect(catalog.orders.size).toBe(SEEDED_ORDERS.length + 12);
    expect(catalog.skus.size).toBe(SEEDED_SKUS.length + 12);
    expect(catalog.evidence.size).toBe(SEEDED_EVIDENCE.length + 12);
    for (const order of SEEDED_ORDERS) expect(catalog.orders.get(order.id)).toBe(order);
    for (const sku of SEEDED_SKUS) expect(catalog.skus.get(sku.sku)).toBe(sku);
    for (const evidence of SEEDED_EVIDENCE) expect(catalog.evidence.get(evidence.id)).toBe(evidence);

    expect(catalog.orders.get('ord_s000001')).toStrictEqual({
      id: 'ord_s000001',
      tenant: 'acme',
      currency: 'USD',
      chargedMinor: 100000,
    });
    expect(catalog.skus.get('sku-000012')).toStrictEqual({
      sku: 'sku-000012',
      tenant: 'acme',
      warehouse: 'north',
      maxHold: 10,
    });
    expect(catalog.evidence.get('ticket_s000007')).toStrictEqual({
      id: 'ticket_s000007',
      tenant: 'acme',
      kind: 'support_ticket',
      text: expect.any(String),
    });
    expect(catalog.orders.has('ord_s000013')).toBe(false);
    expect(catalog.skus.has('sku-000000')).toBe(false);
  });

  it('names the n-th scaled records with six digits', () => {
    expect(scaledIds(1)).toStrictEqual({ order: 'ord_s000001', sku: 'sku-000001', evidence: 'ticket_s000001' });
    expect(scaledIds(123456)).toStrictEqual({ order: 'ord_s123456', sku: 'sku-123456', evidence: 'ticket_s123456' });
  });

  it.each([-1, 1.5, MAX_DEMO_SCALE + 1, Number.NaN])('refuses scale %s', (scale) => {
    expect(() => demoCatalog(scale)).toThrow(RangeError);
  });
});
