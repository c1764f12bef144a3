import type { ActionModule, ArgsOfContracts } from '../types';
import { zodContract, zodJsonSchema } from '../zod-contract';
import { lookupHold, readSku, writeHold } from './adapter';
import { holdReceipt, holdStockArgsV1, holdStockArgsV2 } from './contract';

const CONTRACTS = [zodContract(1, 'current', holdStockArgsV1), zodContract(2, 'shadow', holdStockArgsV2)];

export const holdStock: ActionModule<ArgsOfContracts<typeof CONTRACTS>> = {
  name: 'hold_stock',
  scope: 'inventory',
  title: 'Hold stock',
  contracts: CONTRACTS,
  output: holdReceipt,
  outputSchema: zodJsonSchema(holdReceipt, 'output'),
  summarize: (args, facts) => {
    const { sku, quantity } = args;
    return `Hold ${quantity} × ${sku}${facts?.warehouse ? ` (warehouse ${facts.warehouse})` : ''}`;
  },
  approveLabel: (args) => `Approve hold of ${args.quantity} × ${args.sku}`,
  receiptNoun: () => 'hold',

  async resolve(systems, tenantId, args) {
    const record = await readSku(systems, args.sku);
    if (!record || record.tenant !== tenantId) return undefined;
    return {
      resourceKey: `sku:${record.sku}`,
      // The warehouse comes from the catalog, never from the agent.
      facts: { warehouse: record.warehouse, maxHold: record.maxHold },
      detail: `${record.sku} in ${tenantId}, warehouse ${record.warehouse}, holds up to ${record.maxHold}`,
    };
  },

  checkRules(args, resolution) {
    const { quantity } = args;
    const maxHold = Number(resolution.facts.maxHold);
    if (quantity > maxHold) {
      return {
        code: 'hold_limit',
        message: `At most ${maxHold} units of this SKU may be held at once; ${quantity} were asked for.`,
      };
    }
    return undefined;
  },

  // A hold of 80 % or more of what may be held at once.
  nearLimit(args, resolution) {
    const { quantity } = args;
    const maxHold = Number(resolution.facts.maxHold);
    if (!(maxHold > 0) || quantity < maxHold * 0.8) return undefined;
    return `${quantity} of at most ${maxHold} units held at once`;
  },

  // Warehouses differ per tenant and live in the catalog, so the values are free-form.
  grants: [{ name: 'warehouses', label: 'Warehouses it may hold stock in' }],
  authorize: (grants, resolution) => (grants.warehouses ?? []).includes(String(resolution.facts.warehouse)),
  risk: (args) => (args.quantity >= 4 ? 'medium' : 'low'),

  defaultRules: [
    {
      id: 'holds-one-approver',
      description: 'Every stock hold needs one approver',
      when: null,
      outcome: 'needs_approval',
      approvals: 1,
      role: 'approver',
    },
  ],
  defaultExpiryHours: 24,

  execute({ client, args, facts, idempotencyKey, signal }) {
    const { sku, quantity } = args;
    return writeHold(client(), { sku, quantity, warehouse: String(facts.warehouse), idempotencyKey }, signal);
  },
  lookupReceipt: ({ client, idempotencyKey }) => lookupHold(client(), idempotencyKey),
  validateReceipt(receipt, args, facts, idempotencyKey) {
    const parsed = holdReceipt.safeParse(receipt);
    if (!parsed.success) return { ok: false, reason: 'receipt does not match the hold receipt schema' };
    const { sku, quantity } = args;
    const got = parsed.data;
    if (got.sku !== sku) return { ok: false, reason: 'receipt names another SKU' };
    if (got.quantity !== quantity) return { ok: false, reason: 'receipt quantity differs from the request' };
    if (facts.warehouse !== undefined && got.warehouse !== String(facts.warehouse))
      return { ok: false, reason: 'receipt names another warehouse' };
    if (got.idempotencyKey !== idempotencyKey)
      return { ok: false, reason: 'receipt idempotency key differs from the request' };
    return { ok: true, receipt: got };
  },

  // The SKU names what is held (and where, through the catalog): an edit changes the quantity only.
  editing: {
    locked: ['sku'],
    limit: (_args, resolution) => ({
      field: 'quantity',
      max: Number(resolution.facts.maxHold),
      why: 'the most this SKU may hold at once',
    }),
  },
  resourceKeyFor: (term) => (holdStockArgsV1.shape.sku.safeParse(term).success ? `sku:${term}` : undefined),
};
