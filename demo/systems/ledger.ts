import { newId } from '@/lib/ids';
import type { HoldRequest, RefundRequest } from './schemas';
import {
  type Catalog,
  demoCatalog,
  type Evidence,
  type Hold,
  type Ledgers,
  type Order,
  type Refund,
  SEEDED_EVIDENCE,
  SEEDED_ORDERS,
  SEEDED_SKUS,
  type Sku,
  seededLedgers,
} from './world';

/** What the reads return (docs/design.md §13). */
export type OrderView = Order & {
  refundedMinor: number;
  refunds: { id: string; amountMinor: number; idempotencyKey: string; createdAt: string }[];
};
export type SkuView = Sku & {
  holds: { id: string; quantity: number; warehouse: string; idempotencyKey: string; createdAt: string }[];
};

export type LedgerRefusal = { status: 409 | 422; code: string; message: string };
export type WriteResult<T> = { outcome: 'created' | 'replayed'; record: T } | ({ outcome: 'refused' } & LedgerRefusal);

const ledgerRefusal = (status: 409 | 422, code: string, message: string): { outcome: 'refused' } & LedgerRefusal => ({
  outcome: 'refused',
  status,
  code,
  message,
});

const conflict = () =>
  ledgerRefusal(
    409,
    'idempotency_conflict',
    'This idempotency key was already used for a different request; nothing was changed.',
  );

const copyLedgers = (ledgers: Ledgers): Ledgers => ({
  refunds: ledgers.refunds.map((refund) => ({ ...refund })),
  holds: ledgers.holds.map((hold) => ({ ...hold })),
});

/** Appends `value` to the list under `key`. */
function append<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * The state of the demo payments and inventory systems: fixed catalogs and two append-only
 * ledgers, each keyed by idempotency key and indexed by order and SKU (reads stay cheap in a
 * bench world of a million records). Every write is synchronous, so a write is committed
 * entirely or not at all before anything else runs.
 */
export class Ledger {
  private ledgers: Ledgers;
  private refundsByKey = new Map<string, Refund>();
  private holdsByKey = new Map<string, Hold>();
  private refundsByOrder = new Map<string, Refund[]>();
  private holdsBySku = new Map<string, Hold[]>();
  /** Evidence added in test mode (`POST /__evidence`): beside the catalog, kept until `POST /__reset`. */
  private addedEvidence = new Map<string, Readonly<Evidence>>();

  constructor(
    initial: Ledgers = seededLedgers(),
    private readonly catalog: Catalog = demoCatalog(0),
  ) {
    this.ledgers = copyLedgers(initial);
    this.index();
  }

  private index(): void {
    this.refundsByKey = new Map(this.ledgers.refunds.map((refund) => [refund.idempotencyKey, refund]));
    this.holdsByKey = new Map(this.ledgers.holds.map((hold) => [hold.idempotencyKey, hold]));
    this.refundsByOrder = new Map();
    this.holdsBySku = new Map();
    for (const refund of this.ledgers.refunds) append(this.refundsByOrder, refund.orderId, refund);
    for (const hold of this.ledgers.holds) append(this.holdsBySku, hold.sku, hold);
  }

  /** The seeded records, then any other catalog record with ledger entries (the bench world stays off the page). */
  private listed<T>(
    seeded: readonly T[],
    idOf: (record: T) => string,
    catalog: ReadonlyMap<string, T>,
    used: Map<string, unknown[]>,
  ): T[] {
    const seen = new Set(seeded.map(idOf));
    const others = [...used.keys()].filter((id) => !seen.has(id)).flatMap((id) => catalog.get(id) ?? []);
    return [...seeded, ...others];
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
    return this.listed(SEEDED_ORDERS, (order) => order.id, this.catalog.orders, this.refundsByOrder).map((order) =>
      this.orderView(order),
    );
  }

  order(id: string): OrderView | undefined {
    const order = this.catalog.orders.get(id);
    return order && this.orderView(order);
  }

  skus(): SkuView[] {
    return this.listed(SEEDED_SKUS, (sku) => sku.sku, this.catalog.skus, this.holdsBySku).map((sku) =>
      this.skuView(sku),
    );
  }

  sku(id: string): SkuView | undefined {
    const sku = this.catalog.skus.get(id);
    return sku && this.skuView(sku);
  }

  /** The seeded evidence (the scaled tickets are served one by one, never listed). */
  evidenceList(): Evidence[] {
    return SEEDED_EVIDENCE.map((evidence) => ({ ...evidence }));
  }

  evidence(id: string): Evidence | undefined {
    const evidence = this.catalog.evidence.get(id) ?? this.addedEvidence.get(id);
    return evidence && { ...evidence };
  }

  /** One more evidence record (test mode); false when a record already has its id. */
  addEvidence(evidence: Evidence): boolean {
    if (this.catalog.evidence.has(evidence.id) || this.addedEvidence.has(evidence.id)) return false;
    this.addedEvidence.set(evidence.id, Object.freeze({ ...evidence }));
    return true;
  }

  forgetAddedEvidence(): void {
    this.addedEvidence.clear();
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
      const same =
        previous.orderId === request.orderId &&
        previous.amountMinor === request.amountMinor &&
        previous.currency === request.currency;
      return same ? { outcome: 'replayed', record: { ...previous } } : conflict();
    }
    const order = this.order(request.orderId);
    if (!order) return ledgerRefusal(422, 'unknown_order', 'No order with that id.');
    if (order.currency !== request.currency) {
      return ledgerRefusal(
        422,
        'currency_mismatch',
        `The order is in ${order.currency}; the refund must be in the same currency.`,
      );
    }
    const refundable = order.chargedMinor - order.refundedMinor;
    if (request.amountMinor > refundable) {
      return ledgerRefusal(
        422,
        'exceeds_refundable_balance',
        `The refundable balance of this order is ${refundable} minor units.`,
      );
    }
    const refund: Refund = { id: newId('re'), ...request, createdAt: now.toISOString() };
    this.ledgers.refunds.push(refund);
    this.refundsByKey.set(refund.idempotencyKey, refund);
    append(this.refundsByOrder, refund.orderId, refund);
    return { outcome: 'created', record: { ...refund } };
  }

  hold(request: HoldRequest, now = new Date()): WriteResult<Hold> {
    const previous = this.holdsByKey.get(request.idempotencyKey);
    if (previous) {
      const same =
        previous.sku === request.sku &&
        previous.quantity === request.quantity &&
        previous.warehouse === request.warehouse;
      return same ? { outcome: 'replayed', record: { ...previous } } : conflict();
    }
    const sku = this.catalog.skus.get(request.sku);
    if (!sku) return ledgerRefusal(422, 'unknown_sku', 'No SKU with that id.');
    if (sku.warehouse !== request.warehouse) {
      return ledgerRefusal(422, 'warehouse_mismatch', `This SKU is stocked in warehouse ${sku.warehouse}.`);
    }
    if (request.quantity > sku.maxHold) {
      return ledgerRefusal(422, 'hold_limit', `At most ${sku.maxHold} of this SKU can be held at once.`);
    }
    const hold: Hold = { id: newId('hold'), ...request, createdAt: now.toISOString() };
    this.ledgers.holds.push(hold);
    this.holdsByKey.set(hold.idempotencyKey, hold);
    append(this.holdsBySku, hold.sku, hold);
    return { outcome: 'created', record: { ...hold } };
  }

  private orderView(order: Readonly<Order>): OrderView {
    const refunds = this.refundsByOrder.get(order.id) ?? [];
    return {
      ...order,
      refundedMinor: refunds.reduce((sum, refund) => sum + refund.amountMinor, 0),
      refunds: refunds.map(({ id, amountMinor, idempotencyKey, createdAt }) => ({
        id,
        amountMinor,
        idempotencyKey,
        createdAt,
      })),
    };
  }

  private skuView(sku: Readonly<Sku>): SkuView {
    const holds = this.holdsBySku.get(sku.sku) ?? [];
    return {
      ...sku,
      holds: holds.map(({ id, quantity, warehouse, idempotencyKey, createdAt }) => ({
        id,
        quantity,
        warehouse,
        idempotencyKey,
        createdAt,
      })),
    };
  }
}
