'use client';

import { useId } from 'react';
import type { GrantOffer } from '@/lib/dashboard/grant-offer';
import { GRANT_MAX_COUNT, GRANT_REASON_MAX, type GrantRequest } from '@/lib/grants/requests';
import { parseMoney } from '@/lib/money';
import { PayloadText } from './payload-text';
import { Input } from './ui/input';
import { Select } from './ui/select';
import { Textarea } from './ui/textarea';

/** The section as typed: off until the person opts in; numbers kept as text until sent. */
export type GrantDraft = {
  on: boolean;
  minutes: number;
  maxCount: string;
  maxTotal: string;
  sameResource: boolean;
  reason: string;
};

export type GrantField = 'maxCount' | 'maxTotal' | 'reason';
export type GrantProblems = Partial<Record<GrantField, string>>;

export const GRANT_DURATIONS = [
  { minutes: 15, label: '15 min' },
  { minutes: 30, label: '30 min' },
  { minutes: 60, label: '1 h' },
  { minutes: 120, label: '2 h' },
  { minutes: 240, label: '4 h' },
  { minutes: 480, label: '8 h' },
] as const;

export const NO_GRANT: GrantDraft = {
  on: false,
  minutes: 60,
  maxCount: '5',
  maxTotal: '',
  sameResource: true,
  reason: '',
};

/** The request the section asks for, or why it cannot be sent, field by field, in words. */
export function grantRequestOf(
  proposalId: string,
  offer: GrantOffer,
  draft: GrantDraft,
): { ok: true; request: GrantRequest } | { ok: false; problems: GrantProblems } {
  const problems: GrantProblems = {};
  const count = /^\d{1,4}$/.test(draft.maxCount) ? Number(draft.maxCount) : NaN;
  if (!(count >= 1 && count <= GRANT_MAX_COUNT)) problems.maxCount = `A whole number from 1 to ${GRANT_MAX_COUNT}.`;
  let maxTotalMinor: number | undefined;
  if (offer.currency && draft.maxTotal !== '') {
    const parsed = parseMoney(draft.maxTotal, offer.currency);
    if (!parsed.ok) problems.maxTotal = parsed.message;
    else if (parsed.minor < 1) problems.maxTotal = `More than 0 ${offer.currency}, or leave it empty for no total cap.`;
    else maxTotalMinor = parsed.minor;
  }
  if (!/\S/.test(draft.reason)) problems.reason = 'Say why proposals like this may be approved without anyone looking.';
  if (Object.keys(problems).length > 0) return { ok: false, problems };
  return {
    ok: true,
    request: {
      proposalId,
      minutes: draft.minutes,
      maxCount: count,
      ...(maxTotalMinor === undefined ? {} : { maxTotalMinor }),
      sameResource: offer.resourceKey !== null && draft.sameResource,
      reason: draft.reason,
    },
  };
}

const HINT = 'block text-xs text-zinc-600 dark:text-zinc-400';

function Problem({ id, text, testId }: { id: string; text: string | undefined; testId: string }) {
  return text ? (
    <span id={id} role="alert" data-testid={testId} className="block text-xs text-red-700 dark:text-red-300">
      {text}
    </span>
  ) : null;
}

/**
 * "Also approve proposals like this for a while": a box to opt in, then the grant's terms. Its
 * fields belong to the approve confirmation: approving sends them after the approval is recorded.
 */
export function GrantSection({
  offer,
  draft,
  problems,
  disabled,
  onChange,
}: {
  offer: GrantOffer;
  draft: GrantDraft;
  problems: GrantProblems;
  disabled: boolean;
  onChange: (draft: GrantDraft) => void;
}) {
  const id = useId();
  const set = (patch: Partial<GrantDraft>) => onChange({ ...draft, ...patch });
  const rule = <span className="font-mono">{offer.rule}</span>;
  const described = (field: GrantField, hint?: string) =>
    [hint, problems[field] ? `${id}-${field}-problem` : undefined].filter(Boolean).join(' ') || undefined;
  return (
    <div data-testid="grant-section" className="mt-3 border-t border-blue-200 pt-3 text-sm dark:border-blue-900">
      <label className="flex items-start gap-2 font-medium">
        <input
          type="checkbox"
          data-testid="grant-toggle"
          className="mt-1 h-4 w-4 accent-blue-700"
          checked={draft.on}
          disabled={disabled}
          aria-controls={`${id}-terms`}
          onChange={(e) => set({ on: e.target.checked })}
        />
        Also approve proposals like this for a while
      </label>
      <p className={`${HINT} ml-6`} id={`${id}-what`}>
        Further <span className="font-mono">{offer.action}</span> proposals of{' '}
        <PayloadText value={offer.agentName} mono={false} /> under rule {rule} are approved in your name, without anyone
        looking, until the time or the count runs out. You or an admin can revoke it in History → Grants.
      </p>
      {draft.on ? (
        <fieldset
          id={`${id}-terms`}
          data-testid="grant-terms"
          disabled={disabled}
          aria-describedby={`${id}-what`}
          className="mt-2 ml-6 space-y-3"
        >
          <legend className="sr-only">Standing grant terms</legend>
          <div className="flex flex-wrap gap-3">
            <label className="block">
              <span>Duration</span>
              <Select
                data-testid="grant-minutes"
                value={draft.minutes}
                onChange={(e) => set({ minutes: Number(e.target.value) })}
                className="mt-1 w-28"
              >
                {GRANT_DURATIONS.map((d) => (
                  <option key={d.minutes} value={d.minutes}>
                    {d.label}
                  </option>
                ))}
              </Select>
            </label>
            <label className="block">
              <span>At most (proposals)</span>
              <Input
                data-testid="grant-max-count"
                type="number"
                inputMode="numeric"
                min={1}
                max={GRANT_MAX_COUNT}
                step={1}
                value={draft.maxCount}
                aria-invalid={problems.maxCount ? true : undefined}
                aria-describedby={described('maxCount')}
                onChange={(e) => set({ maxCount: e.target.value })}
                className="mt-1 w-28 font-mono"
              />
            </label>
            {offer.currency ? (
              <label className="block">
                <span>
                  In all at most <span className="text-xs text-zinc-600 dark:text-zinc-400">(optional)</span>
                </span>
                <span className="mt-1 flex items-center gap-2">
                  <Input
                    data-testid="grant-max-total"
                    inputMode="decimal"
                    autoComplete="off"
                    maxLength={20}
                    value={draft.maxTotal}
                    aria-invalid={problems.maxTotal ? true : undefined}
                    aria-describedby={described('maxTotal', `${id}-total-hint`)}
                    onChange={(e) => set({ maxTotal: e.target.value })}
                    className="w-32 font-mono"
                  />
                  <span data-testid="grant-currency" className="font-mono font-medium">
                    {offer.currency}
                  </span>
                </span>
              </label>
            ) : null}
          </div>
          {offer.currency ? (
            <span id={`${id}-total-hint`} className={HINT}>
              The most all proposals it approves may add up to, in {offer.currency}; empty: only the count caps it.
            </span>
          ) : null}
          <Problem id={`${id}-maxCount-problem`} text={problems.maxCount} testId="grant-problem-max-count" />
          <Problem id={`${id}-maxTotal-problem`} text={problems.maxTotal} testId="grant-problem-max-total" />
          {offer.resourceKey ? (
            <label className="flex items-center gap-2">
              <input
                type="checkbox"
                data-testid="grant-same-resource"
                className="h-4 w-4 accent-blue-700"
                checked={draft.sameResource}
                onChange={(e) => set({ sameResource: e.target.checked })}
              />
              <span>
                Only this resource (<PayloadText value={offer.resourceKey} />)
              </span>
            </label>
          ) : null}
          <label className="block">
            <span>Reason (required)</span>
            <Textarea
              data-testid="grant-reason"
              rows={2}
              required
              maxLength={GRANT_REASON_MAX}
              value={draft.reason}
              aria-invalid={problems.reason ? true : undefined}
              aria-describedby={described('reason')}
              onChange={(e) => set({ reason: e.target.value })}
              className="mt-1"
            />
          </label>
          <Problem id={`${id}-reason-problem`} text={problems.reason} testId="grant-problem-reason" />
        </fieldset>
      ) : null}
    </div>
  );
}
