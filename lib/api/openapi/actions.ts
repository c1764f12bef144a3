import { z } from 'zod';
import { allActions } from '@/lib/actions/registry';
import { storedReceiptSchema } from '@/lib/api/responses/proposals';
import { bundleSchema } from '@/lib/audit/bundle-verify';
import { addJsonSchema, component, refOf } from './components';

/**
 * What the action registry gives the document, from the action modules themselves (lib/actions/…):
 * each contract version's arguments as `<action>.v<version>.args` and each action's receipt (its
 * `output`, what the executor validates every receipt against) as `<action>.receipt`. Adding an
 * action to the registry adds them here; nothing is written per action.
 */

const contracts = allActions().flatMap((action) =>
  action.contracts.flatMap(({ version, zod }) =>
    zod ? [{ action: action.name, version, args: component(zod, `${action.name}.v${version}.args`, 'input') }] : [],
  ),
);

/**
 * An envelope's `args` follow the contract its `action` and `contractVersion` name: one branch per
 * contract version the server knows (`GET /api/v1/contracts` says which ones your tenant accepts).
 */
export function contractBranches() {
  return {
    oneOf: contracts.map(({ action, version, args }) => ({
      properties: { action: { const: action }, contractVersion: { const: version }, args: refOf(args) },
      required: ['action', 'contractVersion', 'args'],
    })),
  };
}

const receipts = allActions().flatMap(({ name, output }) => (output ? [component(output, `${name}.receipt`)] : []));

/** An execution's receipt: what the system of record answered, one of the actions' receipts. */
export const receiptSchema = component(
  z
    .union(receipts)
    .describe(
      "What the system of record answered for the one write, as the action's receipt schema (`<action>.receipt`) " +
        'describes it; the executor checked it against the signed command.',
    ),
  'Receipt',
);

/**
 * Where a stored receipt is passed through as recorded (a proposal's execution, an evidence bundle's), the document
 * names the receipts.
 */
for (const stored of [storedReceiptSchema, bundleSchema.shape.execution.unwrap().shape.receipt.unwrap()])
  addJsonSchema(stored, () => refOf(receiptSchema));
