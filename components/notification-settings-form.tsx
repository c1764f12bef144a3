'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { saveNotificationSettings } from '@/lib/client/notifications-api';
import { valueOrThrow } from '@/lib/client/operator-api';
import type { NotificationSettings } from '@/lib/notifications/channels';
import { NOTIFICATIONS_KEY } from './notification-channels';
import { CardForm, SettingsFormFooter } from './notification-ui';
import { Input } from './ui/input';

const WHOLE = /^\d+$/;

/** The tenant's reminder and escalation times and the argument values opt-in. */
export function NotificationSettingsForm({ initial }: { initial: NotificationSettings }) {
  const client = useQueryClient();
  const [reminder, setReminder] = useState(String(initial.reminderLeadMinutes));
  const [escalate, setEscalate] = useState(String(initial.escalateAfterMinutes));
  const [withValues, setWithValues] = useState(initial.notifyWithValues);
  const [localProblem, setLocalProblem] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: async (settings: NotificationSettings) =>
      valueOrThrow(await saveNotificationSettings(settings)).settings,
    onSettled: () => client.invalidateQueries({ queryKey: NOTIFICATIONS_KEY }),
  });

  return (
    <CardForm
      testId="settings-form"
      label="Notification settings"
      onSubmit={() => {
        if (!WHOLE.test(reminder) || !WHOLE.test(escalate)) {
          setLocalProblem('Enter whole numbers of minutes (0 turns a notice off).');
          return;
        }
        setLocalProblem(null);
        save.mutate({
          reminderLeadMinutes: Number(reminder),
          escalateAfterMinutes: Number(escalate),
          notifyWithValues: withValues,
        });
      }}
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <label htmlFor="reminder-lead" className="block text-sm font-medium">
          Remind before expiry (minutes)
          <Input
            id="reminder-lead"
            data-testid="settings-reminder"
            inputMode="numeric"
            value={reminder}
            onChange={(e) => setReminder(e.target.value)}
            className="mt-1 font-mono"
            aria-describedby="reminder-hint"
          />
          <span id="reminder-hint" className="mt-1 block text-xs font-normal text-zinc-600 dark:text-zinc-400">
            A pending proposal this close to expiring is sent again to deciders. 0 = off.
          </span>
        </label>
        <label htmlFor="escalate-after" className="block text-sm font-medium">
          Escalate after (minutes)
          <Input
            id="escalate-after"
            data-testid="settings-escalate"
            inputMode="numeric"
            value={escalate}
            onChange={(e) => setEscalate(e.target.value)}
            className="mt-1 font-mono"
            aria-describedby="escalate-hint"
          />
          <span id="escalate-hint" className="mt-1 block text-xs font-normal text-zinc-600 dark:text-zinc-400">
            Admins are told when nobody has decided a proposal this long after it was created. 0 = off.
          </span>
        </label>
      </div>
      <label htmlFor="notify-with-values" className="flex items-start gap-2 text-sm">
        <input
          id="notify-with-values"
          type="checkbox"
          data-testid="settings-values"
          checked={withValues}
          onChange={(e) => setWithValues(e.target.checked)}
          className="mt-1"
          aria-describedby="values-hint"
        />
        <span>
          <span className="font-medium">Include argument values in messages</span>
          <span id="values-hint" className="block text-xs text-zinc-600 dark:text-zinc-400">
            Off by default: messages carry the action, the agent, the risk, the status and a link, and no argument
            value. When on, each message also carries the proposal’s one-line summary — amounts, order ids, SKUs and
            quantities — which leaves Countersign for every channel’s receiver (your webhook endpoints, Slack, email
            servers).
          </span>
        </span>
      </label>
      <SettingsFormFooter localProblem={localProblem} save={save} testIdPrefix="settings" label="Save settings" />
    </CardForm>
  );
}
