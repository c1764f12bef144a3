'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { type OversightSettingsInput, putOversightSettings, valueOrThrow } from '@/lib/client/operator-api';
import { CardForm, SettingsFormFooter } from './notification-ui';
import { Input } from './ui/input';

const WHOLE = /^\d+$/;

const FIELDS = [
  { key: 'minDecisions', id: 'oversight-min', label: 'At least (decisions)', hint: 'in the last 7 days' },
  { key: 'approvalRatePercent', id: 'oversight-rate', label: 'Approval rate at or above (%)', hint: '0–100' },
  {
    key: 'medianDwellSeconds',
    id: 'oversight-dwell',
    label: 'Median dwell under (seconds)',
    hint: 'first opened to decided',
  },
] as const;

/**
 * Admins: the rubber-stamp alarm's three thresholds; 0 in any turns it off. The page reloads its figures after a save.
 */
export function OversightSettingsForm({ initial }: { initial: OversightSettingsInput }) {
  const router = useRouter();
  const [values, setValues] = useState<Record<keyof OversightSettingsInput, string>>({
    minDecisions: String(initial.minDecisions),
    approvalRatePercent: String(initial.approvalRatePercent),
    medianDwellSeconds: String(initial.medianDwellSeconds),
  });
  const [localProblem, setLocalProblem] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: async (settings: OversightSettingsInput) => valueOrThrow(await putOversightSettings(settings)).settings,
    onSuccess: () => router.refresh(),
  });
  return (
    <CardForm
      testId="oversight-settings-form"
      label="Rubber-stamp alarm"
      onSubmit={() => {
        if (!Object.values(values).every((value) => WHOLE.test(value))) {
          setLocalProblem('Enter whole numbers (0 turns the alarm off).');
          return;
        }
        setLocalProblem(null);
        save.mutate({
          minDecisions: Number(values.minDecisions),
          approvalRatePercent: Number(values.approvalRatePercent),
          medianDwellSeconds: Number(values.medianDwellSeconds),
        });
      }}
    >
      <div className="grid gap-4 sm:grid-cols-3">
        {FIELDS.map((field) => (
          <label key={field.key} htmlFor={field.id} className="block text-sm font-medium">
            {field.label}
            <Input
              id={field.id}
              data-testid={field.id}
              inputMode="numeric"
              value={values[field.key]}
              onChange={(e) => setValues({ ...values, [field.key]: e.target.value })}
              className="mt-1 font-mono"
              aria-describedby={`${field.id}-hint`}
            />
            <span id={`${field.id}-hint`} className="mt-1 block text-xs font-normal text-zinc-600 dark:text-zinc-400">
              {field.hint}; 0 = off.
            </span>
          </label>
        ))}
      </div>
      <SettingsFormFooter
        localProblem={localProblem}
        save={save}
        testIdPrefix="oversight-settings"
        label="Save alarm settings"
      />
    </CardForm>
  );
}
