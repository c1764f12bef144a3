import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { definedAction } from './module';
import { parseDefinition } from './parse';

/** A demo definition as a declared action (its services are never called here). */
function declared(name: string) {
  const parsed = parseDefinition(fs.readFileSync(`demo/actions/${name}.json`, 'utf8'));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return definedAction(parsed.definition, 1);
}

const refund = declared('issue_refund');
const hold = declared('hold_stock');
const order = (chargedMinor: number, refundedMinor: number) => ({
  resourceKey: 'order:ord_1',
  facts: { currency: 'USD', chargedMinor, refundedMinor },
  detail: 'ord_1',
});
const none = { count: 0, total: 0 };

describe('how a declared action reads to people', () => {
  it('words the summary, the approve label and the receipt as the definition says, money in major units', () => {
    const args = { orderId: 'ord_1', amountMinor: 4999, currency: 'USD', reason: 'Damaged' };
    expect(refund.summarize(args)).toBe('Refund 49.99 USD on order ord_1');
    expect(refund.approveLabel(args)).toBe('Approve refund of 49.99 USD');
    expect(refund.receiptNoun?.(args)).toBe('refund');
    expect(refund.argHints?.(args)).toEqual({ amountMinor: '49.99 USD' });
    expect(hold.approveLabel({ sku: 'filter-blue', quantity: 3 })).toBe('Approve hold of 3 × filter-blue');
  });

  it('flags an argument from `near` of its live limit on, in words with both values', () => {
    const args = (amountMinor: number) => ({ orderId: 'ord_1', amountMinor, currency: 'USD', reason: 'Damaged' });
    // 50.00 left: 90 % is 45.00.
    expect(refund.nearLimit?.(args(4499), order(6000, 1000), none)).toBeUndefined();
    expect(refund.nearLimit?.(args(4500), order(6000, 1000), none)).toBe('45.00 USD of 50.00 USD: still refundable');
    // Open proposals claim part of it: 20.00 left.
    expect(refund.nearLimit?.(args(1800), order(6000, 1000), { count: 1, total: 3000 })).toBe(
      '18.00 USD of 20.00 USD: still refundable',
    );
    // Nothing left is the rules' refusal, not a flag.
    expect(refund.nearLimit?.(args(100), order(1000, 1000), none)).toBeUndefined();
    const sku = { resourceKey: 'sku:filter-blue', facts: { warehouse: 'north', maxHold: 5 }, detail: 'filter-blue' };
    expect(hold.nearLimit?.({ sku: 'filter-blue', quantity: 3 }, sku, none)).toBeUndefined();
    expect(hold.nearLimit?.({ sku: 'filter-blue', quantity: 4 }, sku, none)).toBe(
      '4 of 5: the most this SKU may hold at once',
    );
  });

  it('without the keys: "Approve: " and the summary, no receipt noun, no near-limit flag', () => {
    const document = JSON.parse(fs.readFileSync('demo/actions/hold_stock.json', 'utf8')) as Record<string, unknown>;
    delete document.approveLabel;
    delete document.receiptNoun;
    const editing = document.editing as { limit: Record<string, unknown> };
    delete editing.limit.near;
    const parsed = parseDefinition(JSON.stringify(document));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const plain = definedAction(parsed.definition, 1);
    expect(plain.approveLabel({ sku: 'filter-blue', quantity: 3 })).toBe(
      `Approve: ${plain.summarize({ sku: 'filter-blue', quantity: 3 })}`,
    );
    expect(plain.receiptNoun).toBeUndefined();
    expect(plain.nearLimit).toBeUndefined();
  });
});
