import type { PolicyChange } from '@/lib/policy/requests';
import type { RoutingRule } from '@/lib/routing-rules';
import { diffRules, ruleInWords } from '@/lib/shared/policy-words';

const MARK = {
  added: '+ added',
  removed: '− removed',
  changed: '~ changed',
  moved: '↕ moved',
  same: '= unchanged',
} as const;

/** After a save: the new version number and the rules before and after, in words. */
export function PolicyDiff({ change }: { change: PolicyChange }) {
  const lines = diffRules(change.before.rules, change.after.rules);
  return (
    <div
      role="status"
      data-testid="policy-saved"
      data-version={change.version}
      className={
        'space-y-2 rounded-md border border-green-300 bg-green-50 p-3 text-sm dark:border-green-800 ' +
        'dark:bg-green-950'
      }
    >
      <p className="font-medium text-green-900 dark:text-green-200">
        Saved as v{change.version} (was v{change.previousVersion}). New proposals are routed by v{change.version};
        pending ones keep the routing they were given.
      </p>
      <ul data-testid="policy-diff" className="space-y-1">
        {lines.map((line) => (
          <li key={`${line.kind}:${line.id}`} data-kind={line.kind} className="break-words">
            <span className="font-mono text-xs">{MARK[line.kind]}</span>{' '}
            <span className="font-mono text-xs">{line.id}</span>
            {line.kind === 'changed' ? (
              <>
                <span className="block pl-4 text-zinc-600 line-through dark:text-zinc-400">before: {line.before}</span>
                <span className="block pl-4">after: {line.after}</span>
              </>
            ) : (
              <span className="block pl-4">{line.after ?? line.before}</span>
            )}
          </li>
        ))}
        {change.before.expiryHours !== change.after.expiryHours ? (
          <li data-kind="expiry">
            <span className="font-mono text-xs">~ expiry</span> {change.before.expiryHours} h →{' '}
            {change.after.expiryHours} h
          </li>
        ) : null}
      </ul>
    </div>
  );
}

/** The rules of a version, in order, in words (the read-only view). */
export function RulesInWords({ rules }: { rules: RoutingRule[] }) {
  return (
    <ol data-testid="policy-rules" className="list-decimal space-y-2 pl-5 text-sm">
      {rules.map((rule) => (
        <li key={rule.id} data-testid="policy-rule-words" data-rule-id={rule.id}>
          <span className="font-medium">{ruleInWords(rule)}</span>
          <span className="block text-zinc-600 dark:text-zinc-400">
            {rule.description ? `“${rule.description}” · ` : ''}
            <span className="font-mono text-xs">{rule.id}</span>
          </span>
        </li>
      ))}
      {rules.length === 0 ? (
        <li className="list-none text-zinc-600 dark:text-zinc-400">
          No rules: every proposal of this action is denied.
        </li>
      ) : null}
    </ol>
  );
}
