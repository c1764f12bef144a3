import { newId } from '@/lib/ids';
import type { HoldRequest, RefundRequest } from './schemas';
import { SEEDED_EVIDENCE, SEEDED_ORDERS, SEEDED_SKUS, seededLedgers, type Evidence, type Hold, type Ledgers, type Order, type Refund, type Sku } from './world';

/** What the reads return (DESIGN.md §13). */
export type OrderView = Order & {
  refundedMinor: number;
  refunds: { id: string; amountMinor: number; idempotencyKey: string; createdAt: string }[];
};
export type SkuView = Sku & { holds: { id: string; quantity: number; warehouse: string; idempotencyKey: string; createdAt: string }[] };

export type Refusal = { status: 409 | 422; code: string; message: string };
export type WriteResult<T> = { outcome: 'created' | 'replayed'; record: T } | ({ outcome: 'refused' } & Refusal);

const refuse = (status: 409 | 422, code: string, message: string): { outcome: 'refused' } & Refusal => ({ outcome: 'refused', status, code, message });

const conflict = () =>
  refuse(409, 'idempotency_conflict', 'This idempotency key was already used for a different request; nothing was changed.');

const copyLedgers = (ledgers: Ledgers): Ledgers => ({
  refunds: ledgers.refunds.map((refund) => ({ ...refund })),
  holds: ledgers.holds.map((hold) => ({ ...hold })),
});

/**
 * The state of the demo payments and inventory systems: fixed catalogs and two append-only
 * ledgers, each keyed by idempotency key. Every write is synchronous, so a write is committed
 * entirely or not at all before anything else runs.
 */
export class Ledger {
  private ledgers: Ledgers;
  private refundsByKey = new Map<string, Refund>();
  private holdsByKey = new Map<string, Hold>();

  constructor(initial: Ledgers = seededLedgers()) {
    this.ledgers = copyLedgers(initial);
    this.index();
  }

  private index(): void {
    this.refundsByKey = new Map(this.ledgers.refunds.map((refund) => [refund.idempotencyKey, refund]));
    this.holdsByKey = new Map(this.ledgers.holds.map((hold) => [hold.idempotencyKey, hold]));
  }

  /** A deep copy of the ledgers (what the data file stores). */
  snapshot(): Ledgers {
    return copyLedgers(this.ledgers);
  }

  restore(ledgers: Ledgers): void {
    this.ledgers = copyLedgers(ledgers);
    this.index();
  }

  orders(): OrderView[] {
    return SEEDED_ORDERS.map((order) => this.orderView(order));
  }

  order(id: string): OrderView | undefined {
    const order = SEEDED_ORDERS.find((candidate) => candidate.id === id);
    return order && this.orderView(order);
  }

  skus(): SkuView[] {
    return SEEDED_SKUS.map((sku) => this.skuView(sku));
  }

  sku(id: string): SkuView | undefined {
    const sku = SEEDED_SKUS.find((candidate) => candidate.sku === id);
    return sku && this.skuView(sku);
  }

  evidenceList(): Evidence[] {
    return SEEDED_EVIDENCE.map((evidence) => ({ ...evidence }));
  }

  evidence(id: string): Evidence | undefined {
    const evidence = SEEDED_EVIDENCE.find((candidate) => candidate.id === id);
    return evidence && { ...evidence };
  }

  refundByKey(key: string): Refund | undefined {
    const refund = this.refundsByKey.get(key);
    return refund && { ...refund };
  }

  holdByKey(key: string): Hold | undefined {
    const hold = this.holdsByKey.get(key);
    return hold && { ...hold };
  }

  /** Another order than `id` (for the wrong_resource fault). */
  otherOrderId(id: string): string {
    return SEEDED_ORDERS.find((order) => order.id !== id)?.id ?? `${id}_other`;
  }

  /** Another SKU than `id` (for the wrong_resource fault). */
  otherSku(id: string): string {
    return SEEDED_SKUS.find((sku) => sku.sku !== id)?.sku ?? `${id}-other`;
  }

  refund(request: RefundRequest, now = new Date()): WriteResult<Refund> {
    const previous = this.refundsByKey.get(request.idempotencyKey);
    if (previous) {
      const same = previous.orderId === request.orderId && previous.amountMinor === request.amountMinor && previous.currency === request.currency;
      return same ? { outcome: 'replayed', record: { ...previous } } : conflict();
    }
    const order = this.order(request.orderId);
    if (!order) return refuse(422, 'unknown_order', 'No order with that id.');
    if (order.currency !== request.currency) {
      return refuse(422, 'currency_mismatch', `The order is in ${order.currency}; the refund must be in the same currency.`);
    }
    const refundable = order.chargedMinor - order.refundedMinor;
    if (request.amountMinor > refundable) {
      return refuse(422, 'exceeds_refundable_balance', `The refundable balance of this order is ${refundable} minor units.`);
    }
    const refund: Refund = { id: newId('re'), ...request, createdAt: now.toISOString() };
    this.ledgers.refunds.push(refund);
    this.refundsByKey.set(refund.idempotencyKey, refund);
    return { outcome: 'created', record: { ...refund } };
  }

  hold(request: HoldRequest, now = new Date()): WriteResult<Hold> {
    const previous = this.holdsByKey.get(request.idempotencyKey);
    if (previous) {
      const same = previous.sku === request.sku && previous.quantity === request.quantity && previous.warehouse === request.warehouse;
      return same ? { outcome: 'replayed', record: { ...previous } } : conflict();
    }
    const sku = SEEDED_SKUS.find((candidate) => candidate.sku === request.sku);
    if (!sku) return refuse(422, 'unknown_sku', 'No SKU with that id.');
    if (sku.warehouse !== request.warehouse) {
      return refuse(422, 'warehouse_mismatch', `This SKU is stocked in warehouse ${sku.warehouse}.`);
    }
    if (request.quantity > sku.maxHold) {
      return refuse(422, 'hold_limit', `At most ${sku.maxHold} of this SKU can be held at once.`);
    }
    const hold: Hold = { id: newId('hold'), ...request, createdAt: now.toISOString() };
    this.ledgers.holds.push(hold);
    this.holdsByKey.set(hold.idempotencyKey, hold);
    return { outcome: 'created', record: { ...hold } };
  }

  private orderView(order: Readonly<Order>): OrderView {
    const refunds = this.ledgers.refunds.filter((refund) => refund.orderId === order.id);
    return {
      ...order,
      refundedMinor: refunds.reduce((sum, refund) => sum + refund.amountMinor, 0),
      refunds: refunds.map(({ id, amountMinor, idempotencyKey, createdAt }) => ({ id, amountMinor, idempotencyKey, createdAt })),
    };
  }

  private skuView(sku: Readonly<Sku>): SkuView {
    const holds = this.ledgers.holds.filter((hold) => hold.sku === sku.sku);
    return { ...sku, holds: holds.map(({ id, quantity, warehouse, idempotencyKey, createdAt }) => ({ id, quantity, warehouse, idempotencyKey, createdAt })) };
  }
}
