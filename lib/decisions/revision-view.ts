import 'server-only';
import type { Database } from '@/db';
import type { Proposal } from '@/db/schema';
import { findAction } from '@/lib/actions/registry';
import type { ActionModule } from '@/lib/actions/types';
import { openClaimsBesides } from '@/lib/gates/claims';
import { formatMinor, formatMoney, minorDigits } from '@/lib/money';
import { canonicalJson } from '@/lib/payload-hash';
import { type SystemsClient, SystemsUnavailableError } from '@/lib/systems/client';

type Args = Record<string, unknown>;

/** One changed argument of a revision, in words: "amount: 15.00 → 12.00 EUR". */
export type RevisionChange = { field: string; label: string; before: string; after: string; unit?: string };

/** A money argument of the edit form: typed in major units beside its currency. */
export type MoneyFieldView = { field: string; label: string; currency: string; digits: number; value: string };

/** What the edit form needs beyond the contract: locked arguments, money fields and the live limit. */
export type EditingView = {
  locked: string[];
  money: MoneyFieldView[];
  /** The most the field may be now: `max` in the field's own units, `text` in words ("580.00 EUR"). */
  limit?: { field: string; max: number; text: string; why: string };
  /** Why no limit is shown although the action has one (the system of record did not answer). */
  limitUnavailable?: string;
};

const raw = (value: unknown) => (value === undefined ? '—' : typeof value === 'string' ? value : canonicalJson(value));

function moneyFields(action: ActionModule | undefined, args: Args) {
  return (action?.editing?.money ?? []).flatMap((spec) => {
    const currency = args[spec.currencyField];
    return typeof currency === 'string' ? [{ ...spec, currency }] : [];
  });
}

/**
 * The arguments an editor changed, in words: money in major units with its currency, the rest with the action's hints.
 */
export function revisionChanges(actionName: string, before: Args, after: Args): RevisionChange[] {
  const action = findAction(actionName);
  const hints = (args: Args) => action?.argHints?.(args) ?? {};
  const [hintsBefore, hintsAfter] = [hints(before), hints(after)];
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return names
    .filter((field) => canonicalJson(before[field] ?? null) !== canonicalJson(after[field] ?? null))
    .map((field) => {
      const money = action?.editing?.money?.find((spec) => spec.field === field);
      const [b, a, cb, ca] = [
        before[field],
        after[field],
        before[money?.currencyField ?? ''],
        after[money?.currencyField ?? ''],
      ];
      if (money && Number.isInteger(b) && Number.isInteger(a) && typeof cb === 'string' && typeof ca === 'string') {
        return cb === ca
          ? {
              field,
              label: money.label,
              before: formatMinor(b as number, cb),
              after: formatMinor(a as number, ca),
              unit: ca,
            }
          : { field, label: money.label, before: formatMoney(b as number, cb), after: formatMoney(a as number, ca) };
      }
      return { field, label: field, before: hintsBefore[field] ?? raw(b), after: hintsAfter[field] ?? raw(a) };
    });
}

/**
 * The edit form's view of a proposal: which arguments are locked, which are money (and in which
 * currency), and the live limit: read from the system of record now, minus the resource's other
 * open proposals (this one's claim is replaced by the revision, so it is not counted).
 */
export async function editingView(db: Database, systems: SystemsClient, proposal: Proposal): Promise<EditingView> {
  const action = findAction(proposal.action);
  const { args } = proposal.payload;
  const money = moneyFields(action, args).map(({ field, label, currency }) => ({
    field,
    label,
    currency,
    digits: minorDigits(currency),
    value: Number.isInteger(args[field]) ? formatMinor(args[field] as number, currency) : '',
  }));
  const view: EditingView = { locked: [...(action?.editing?.locked ?? [])], money };
  const limitOf = action?.editing?.limit;
  if (!action || !limitOf) return view;
  try {
    const resolution = await action.resolve(systems, proposal.tenantId, args);
    if (!resolution)
      return {
        ...view,
        limitUnavailable: 'What this proposal acts on can no longer be found; the checks will refuse any revision.',
      };
    const limit = limitOf(args, resolution, await openClaimsBesides(db, proposal, resolution.resourceKey));
    if (!limit) return view;
    const unit = money.find((m) => m.field === limit.field);
    return { ...view, limit: { ...limit, text: unit ? formatMoney(limit.max, unit.currency) : String(limit.max) } };
  } catch (error) {
    if (!(error instanceof SystemsUnavailableError)) throw error;
    return {
      ...view,
      limitUnavailable:
        'The live limit could not be read just now (the system of record did not answer); the checks will still ' +
        'refuse too much.',
    };
  }
}
