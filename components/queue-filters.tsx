'use client';

import { QUEUE_RISKS, QUEUE_SORTS, type QueueView, SORT_LABELS } from '@/lib/shared/queue-view';
import { visibleText } from '@/lib/text/visible';
import { Button } from './ui/button';
import { Select } from './ui/select';

/**
 * Action, agent, risk and sort; every change becomes the URL, so a view can be shared. `stacked`:
 * one labelled field a line (the phone's filters sheet).
 */
export function QueueFilters({
  view,
  actions,
  agents,
  onChange,
  stacked = false,
}: {
  view: QueueView;
  actions: string[];
  agents: string[];
  onChange: (view: QueueView) => void;
  stacked?: boolean;
}) {
  const label = stacked ? 'flex flex-col gap-1 text-sm' : 'flex items-center gap-1 text-sm';
  const name = stacked ? 'text-xs font-medium text-zinc-600 dark:text-zinc-400' : 'sr-only';
  const agentChoices = view.agent && !agents.includes(view.agent) ? [...agents, view.agent] : agents;
  const filtered = Boolean(view.action || view.agent || view.risk);
  return (
    <div
      role="group"
      aria-label="Filters and sort"
      className={stacked ? 'flex flex-col gap-3' : 'flex flex-wrap items-center gap-2'}
    >
      <label className={label}>
        <span className={name}>Action</span>
        <Select
          compact
          data-testid="queue-filter-action"
          value={view.action ?? ''}
          onChange={(e) => onChange({ ...view, action: e.target.value || undefined })}
        >
          <option value="">Any action</option>
          {actions.map((action) => (
            <option key={action} value={action}>
              {action}
            </option>
          ))}
        </Select>
      </label>
      <label className={label}>
        <span className={name}>Agent</span>
        <Select
          compact
          data-testid="queue-filter-agent"
          value={view.agent ?? ''}
          onChange={(e) => onChange({ ...view, agent: e.target.value || undefined })}
        >
          <option value="">Any agent</option>
          {agentChoices.map((agent) => (
            <option key={agent} value={agent}>
              {visibleText(agent)}
            </option>
          ))}
        </Select>
      </label>
      <label className={label}>
        <span className={name}>Risk</span>
        <Select
          compact
          data-testid="queue-filter-risk"
          value={view.risk ?? ''}
          onChange={(e) => onChange({ ...view, risk: (e.target.value || undefined) as QueueView['risk'] })}
        >
          <option value="">Any risk</option>
          {QUEUE_RISKS.map((risk) => (
            <option key={risk} value={risk}>
              {risk} risk
            </option>
          ))}
        </Select>
      </label>
      <label className={label}>
        <span className={stacked ? name : ''}>Sort:</span>
        <Select
          compact
          data-testid="queue-sort"
          value={view.sort}
          onChange={(e) => onChange({ ...view, sort: e.target.value as QueueView['sort'] })}
        >
          {QUEUE_SORTS.map((sort) => (
            <option key={sort} value={sort}>
              {SORT_LABELS[sort]}
            </option>
          ))}
        </Select>
      </label>
      {filtered ? (
        <Button
          variant="link"
          className="text-sm"
          data-testid="queue-filter-clear"
          onClick={() => onChange({ group: view.group, sort: view.sort })}
        >
          Clear filters
        </Button>
      ) : null}
    </div>
  );
}
