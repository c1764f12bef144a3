import type { Facts } from '@/db/schema';
import { formatMoney } from '@/lib/money';
import type { ActionModule, ArgsOfContracts, OpenClaims, Resolution } from '../types';
import { zodContract, zodJsonSchema } from '../zod-contract';
import { lookupRefund, readOrder, writeRefund } from './adapter';
import { issueRefundArgsV1, refundReceipt } from './contract';

const CONTRACTS = [zodContract(1, 'current', issueRefundArgsV1)];

/** What is left to refund on the order: charged, minus refunded, minus what open proposals claim. */
function balanceOf(resolution: Resolution, open: OpenClaims) {
  const charged = Number(resolution.facts.chargedMinor);
  const refunded = Number(resolution.facts.refundedMinor);
  const reserved = open.total;
  return { charged, refunded, reserved, left: charged - refunded - reserved };
}

export const issueRefund: ActionModule<ArgsOfContracts<typeof CONTRACTS>> = {
  name: 'issue_refund',
  scope: 'payments',
  title: 'Issue refund',
  contracts: CONTRACTS,
  output: refundReceipt,
  outputSchema: zodJsonSchema(refundReceipt, 'output'),
  summarize: (args) => {
    const { amountMinor, currency, orderId } = args;
    return `Refund ${formatMoney(amountMinor, currency)} on order ${orderId}`;
  },
  argHints: (args) => ({ amountMinor: formatMoney(args.amountMinor, args.currency) }),
  describeAggregate: (args, { field, priorCount, total, windowHours }) => {
    const { orderId, currency } = args;
    const amount = field === 'amountMinor' ? formatMoney(total, currency) : `${field} ${total}`;
    return (
      `With ${priorCount} earlier refund${priorCount === 1 ? '' : 's'} on ${orderId} in the ` +
      `last ${windowHours} h: ${amount} in all`
    );
  },
  approveLabel: (args) => `Approve refund of ${formatMoney(args.amountMinor, args.currency)}`,
  receiptNoun: () => 'refund',

  async resolve(systems, tenantId, args) {
    const order = await readOrder(systems, args.orderId);
    if (!order || order.tenant !== tenantId) return undefined;
    const balance = order.chargedMinor - order.refundedMinor;
    return {
      resourceKey: `order:${order.id}`,
      facts: { currency: order.currency, chargedMinor: order.chargedMinor, refundedMinor: order.refundedMinor },
      detail:
        `${order.id} in ${tenantId}, charged ${formatMoney(order.chargedMinor, order.currency)}, ` +
        `${formatMoney(balance, order.currency)} not yet refunded`,
    };
  },

  claimField: 'amountMinor',
  checkRules(args, resolution, open) {
    const { amountMinor, currency } = args;
    const orderCurrency = String(resolution.facts.currency);
    if (currency !== orderCurrency) {
      return {
        code: 'currency_mismatch',
        message: `The order was charged in ${orderCurrency}; the refund must be in ${orderCurrency}.`,
      };
    }
    const { charged, refunded, reserved, left } = balanceOf(resolution, open);
    if (charged - refunded <= 0)
      return { code: 'order_not_refundable', message: 'This order has nothing left to refund.' };
    if (amountMinor > left) {
      return {
        code: 'exceeds_refundable_balance',
        message:
          `At most ${formatMoney(Math.max(left, 0), orderCurrency)} can be refunded ` +
          `(charged ${formatMoney(charged, orderCurrency)}, ` +
          `refunded ${formatMoney(refunded, orderCurrency)}, ${formatMoney(reserved, orderCurrency)} in open ` +
          `proposals).`,
      };
    }
    return undefined;
  },

  // A refund taking 90 % or more of what is still refundable (after the open proposals).
  nearLimit(args, resolution, open) {
    const { amountMinor, currency } = args;
    const { reserved, left: refundable } = balanceOf(resolution, open);
    if (refundable <= 0 || amountMinor < refundable * 0.9) return undefined;
    const amount = formatMoney(amountMinor, currency).replace(/ \S+$/, '');
    return (
      `${amount} of ${formatMoney(refundable, currency)} still ` +
      `refundable${reserved > 0 ? ` (after ${formatMoney(reserved, currency)} in open proposals)` : ''}`
    );
  },

  describeChange(before, after) {
    const currency = String(after.currency ?? before.currency);
    if (String(before.currency) !== String(after.currency))
      return `order currency changed from ${String(before.currency)} to ${String(after.currency)}`;
    const balance = (facts: Facts) => Number(facts.chargedMinor) - Number(facts.refundedMinor);
    if (balance(before) !== balance(after))
      return (
        `order balance changed ` +
        `from ${formatMoney(balance(before), currency)} to ${formatMoney(balance(after), currency)}`
      );
    return (
      `order charges or refunds changed (charged ${formatMoney(Number(after.chargedMinor), currency)}, ` +
      `refunded ${formatMoney(Number(after.refundedMinor), currency)})`
    );
  },

  authorize: () => true,
  risk: (args) => (args.amountMinor > 10_000 ? 'high' : 'low'),

  defaultRules: [
    // Bounded per order over 24 h, so splitting a refund never needs fewer approvers.
    {
      id: 'refunds-over-100',
      description: 'Refunds above 100.00 per order in 24 h need two approvers',
      when: { field: 'amountMinor', above: 10_000, aggregate: { windowHours: 24 } },
      outcome: 'needs_approval',
      approvals: 2,
      role: 'approver',
    },
    {
      id: 'refunds-up-to-100',
      description: 'Refunds up to 100.00 per order in 24 h need one approver',
      when: null,
      outcome: 'needs_approval',
      approvals: 1,
      role: 'approver',
    },
  ],
  defaultExpiryHours: 24,

  execute({ client, args, idempotencyKey, signal }) {
    const { orderId, amountMinor, currency } = args;
    return writeRefund(client(), { orderId, amountMinor, currency, idempotencyKey }, signal);
  },
  lookupReceipt: ({ client, idempotencyKey }) => lookupRefund(client(), idempotencyKey),
  validateReceipt(receipt, args, _facts, idempotencyKey) {
    const parsed = refundReceipt.safeParse(receipt);
    if (!parsed.success) return { ok: false, reason: 'receipt does not match the refund receipt schema' };
    const { orderId, amountMinor, currency } = args;
    const got = parsed.data;
    if (got.orderId !== orderId) return { ok: false, reason: 'receipt names another order' };
    if (got.amountMinor !== amountMinor) return { ok: false, reason: 'receipt amount differs from the request' };
    if (got.currency !== currency) return { ok: false, reason: 'receipt currency differs from the request' };
    if (got.idempotencyKey !== idempotencyKey)
      return { ok: false, reason: 'receipt idempotency key differs from the request' };
    return { ok: true, receipt: got };
  },

  // The order and its currency name what is refunded: an edit changes the amount or the reason only.
  editing: {
    locked: ['orderId', 'currency'],
    money: [{ field: 'amountMinor', currencyField: 'currency', label: 'amount' }],
    limit: (_args, resolution, open) => ({
      field: 'amountMinor',
      max: Math.max(balanceOf(resolution, open).left, 0),
      why: 'still refundable',
    }),
  },
  resourceKeyFor: (term) => (issueRefundArgsV1.shape.orderId.safeParse(term).success ? `order:${term}` : undefined),
};
