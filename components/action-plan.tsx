import type { DefinitionPlanAnswer } from '@/lib/definitions/answers';

const BOX = 'space-y-2 rounded-md border p-3 text-sm';

function Warnings({ warnings }: { warnings: string[] }) {
  if (warnings.length === 0) return null;
  return (
    <div data-testid="definition-plan-warnings" className="space-y-1">
      <p className="font-medium">Warnings ({warnings.length}): publishing is allowed; read them once.</p>
      <ul className="list-disc space-y-0.5 pl-5 text-amber-950 dark:text-amber-100">
        {warnings.map((warning) => (
          <li key={warning} className="break-words">
            {warning}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The first line of a valid plan: new, the next version, or no change at all. */
function headline(plan: Extract<DefinitionPlanAnswer, { valid: true }>): string {
  if (plan.currentVersion === null) return `${plan.name} is new: publishing makes v1.`;
  if (plan.unchanged)
    return `${plan.name} is unchanged from v${plan.currentVersion}: publishing it would make no new version.`;
  return `${plan.name} v${plan.currentVersion} → v${plan.currentVersion + 1}`;
}

/**
 * What `actions:plan` says of a draft: its problems by path (nothing may be published), or the
 * change in words with what breaks agents set apart, then the contracts lint's warnings.
 */
export function DefinitionPlanView({ plan }: { plan: DefinitionPlanAnswer }) {
  if (!plan.valid)
    return (
      <div
        role="alert"
        data-testid="definition-plan"
        data-valid="false"
        className={`${BOX} border-red-300 bg-red-50 text-red-950 dark:border-red-800 dark:bg-red-950 dark:text-red-100`}
      >
        <p className="font-medium">
          Not publishable: {plan.problems.length} problem{plan.problems.length === 1 ? '' : 's'}, each by its path in
          the document.
        </p>
        <ul data-testid="definition-problems" className="list-disc space-y-1 pl-5">
          {plan.problems.map((problem) => (
            <li key={`${problem.path}:${problem.message}`} data-testid="definition-problem" className="break-words">
              <code className="font-mono text-xs font-medium">{problem.path || '(the document)'}</code>:{' '}
              {problem.message}
            </li>
          ))}
        </ul>
        <Warnings warnings={plan.warnings} />
      </div>
    );
  return (
    <div
      role="status"
      data-testid="definition-plan"
      data-valid="true"
      data-breaking={plan.breaking.length}
      className={`${BOX} border-blue-300 bg-blue-50 dark:border-blue-800 dark:bg-blue-950`}
    >
      <p className="font-medium" data-testid="definition-plan-head">
        {headline(plan)}
      </p>
      {plan.changes.length > 0 ? (
        <ul data-testid="definition-plan-changes" className="list-disc space-y-0.5 pl-5">
          {plan.changes.map((change) => (
            <li key={change} className="break-words">
              {change}
            </li>
          ))}
        </ul>
      ) : null}
      {plan.breaking.length > 0 ? (
        <div
          data-testid="definition-plan-breaking"
          className={
            'space-y-1 rounded border border-red-400 bg-red-50 p-2 text-red-950 dark:border-red-700 ' +
            'dark:bg-red-950 dark:text-red-100'
          }
        >
          <p className="font-semibold">
            Breaking for agents ({plan.breaking.length}): arguments they sent validly before will be refused.
          </p>
          <ul className="list-disc space-y-0.5 pl-5">
            {plan.breaking.map((change) => (
              <li key={change} className="break-words">
                {change}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <ReplayWords replay={plan.replay} />
      <Warnings warnings={plan.warnings} />
    </div>
  );
}

type Replay = Extract<DefinitionPlanAnswer, { valid: true }>['replay'];

/** The action's recent proposals through the draft: how many would still pass, and what would refuse the rest. */
function ReplayWords({ replay }: { replay: Replay }) {
  const refused = replay.refused.reduce((sum, each) => sum + each.count, 0);
  return (
    <div data-testid="definition-plan-replay" data-refused={refused + replay.invalid}>
      {replay.proposals === 0 ? (
        <p>No proposals of this action to replay yet.</p>
      ) : (
        <>
          <p>
            The newest {replay.proposals} proposal(s), replayed with the facts read then:{' '}
            {replay.proposals - replay.invalid - refused} pass.
          </p>
          <ul className="list-disc space-y-0.5 pl-5">
            {replay.invalid > 0 ? <li>{replay.invalid} no longer match a contract version it accepts.</li> : null}
            {replay.refused.map((each) => (
              <li key={each.code}>
                {each.count} refused by rule <code className="font-mono">{each.code}</code>.
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
