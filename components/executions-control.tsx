'use client';

import { useRouter } from 'next/navigation';
import { useState, useTransition } from 'react';
import { pauseExecutions, resumeExecutions } from '@/lib/client/executions-api';
import type { ApiProblem } from '@/lib/client/operator-api';
import { CARD } from './notification-ui';
import { Button } from './ui/button';
import { Input } from './ui/input';

/** An admin's emergency stop: pause the tenant's executions (with an optional reason) or resume them. */
export function ExecutionsControl({ paused }: { paused: boolean }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [reason, setReason] = useState('');

  const send = (request: () => ReturnType<typeof resumeExecutions>) =>
    startTransition(async () => {
      const result = await request();
      setProblem(result.ok ? null : result.problem);
      if (result.ok) router.refresh();
    });

  return (
    <div id="executions" className={`${CARD} space-y-3`} data-testid="executions-control">
      <h2 className="font-semibold">Emergency stop</h2>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        {paused
          ? 'Executions are paused: approved commands wait and no proposal expires. Resuming moves every pending ' +
            'deadline on by the time paused and sends what waited.'
          : 'Pausing stops every approved command of this tenant before it runs: nothing is written to a system of ' +
            'record until you resume, and no proposal expires meanwhile.'}
      </p>
      {paused ? (
        <Button
          variant="primary"
          disabled={pending}
          onClick={() => send(resumeExecutions)}
          data-testid="executions-resume"
        >
          Resume executions
        </Button>
      ) : (
        <div className="flex flex-wrap items-end gap-2">
          <label htmlFor="pause-reason" className="block grow text-sm font-medium">
            Reason (optional)
            <Input
              id="pause-reason"
              data-testid="executions-pause-reason"
              maxLength={500}
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              className="mt-1"
            />
          </label>
          <Button
            variant="secondary"
            disabled={pending}
            onClick={() => send(() => pauseExecutions(reason.trim()))}
            data-testid="executions-pause"
          >
            Pause executions
          </Button>
        </div>
      )}
      {problem ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400" data-testid="executions-problem">
          {problem.message}
        </p>
      ) : null}
    </div>
  );
}
