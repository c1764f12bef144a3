import type { Database } from '@/db';
import { rolloutRows } from '@/lib/contracts/catalog';
import { type DefinitionChanges, definitionChanges } from './changes';
import type { Definition } from './document';
import { type DefinitionProblem, parseDefinition } from './parse';
import { type Replay, replayLines, replayRecent } from './replay';
import { currentDefinitions, definitionHistory, publishProblems, type StoredDefinition } from './store';

/**
 * What `actions:plan` and `actions:apply` say (scripts/cli.ts): a definition file checked, and
 * compared with the tenant's current version of it, in words a person reads before publishing.
 */

export type DefinitionPlan =
  | { ok: false; problems: DefinitionProblem[]; warnings: string[] }
  | {
      ok: true;
      name: string;
      /** The checked document, as it would be published. */
      document: Definition;
      /** The tenant's current version, if it has one. */
      current?: number;
      unchanged: boolean;
      changes: DefinitionChanges;
      /** The action's recent proposals through the new definition. */
      replay: Replay;
      warnings: string[];
    };

export async function planDefinition(db: Database, tenantId: string, text: string): Promise<DefinitionPlan> {
  const parsed = parseDefinition(text);
  if (!parsed.ok) return parsed;
  const { document } = parsed.definition;
  // What only publishing checks (the operator's origins): said here first.
  const refused = publishProblems(document);
  if (refused.length > 0) return { ok: false, problems: refused, warnings: parsed.warnings };
  const [[current], replay, rollout] = await Promise.all([
    definitionHistory(db, tenantId, document.name),
    replayRecent(db, tenantId, parsed.definition),
    rolloutRows(db, tenantId, document.name),
  ]);
  // Publishing replaces the rollout changes made on the Contracts page: each one it undoes is said first.
  const undone = rollout.flatMap((row) => {
    const declared = document.contracts.find((contract) => contract.version === row.version)?.status;
    const where = `v${row.version} is ${row.status} in this tenant (set on the Contracts page)`;
    if (declared === undefined) return [`${where}; this document has no v${row.version}.`];
    if (declared !== row.status) return [`${where}; publishing makes it ${declared}, as this document says.`];
    return row.sunsetAt ? [`v${row.version}'s announced sunset is cleared by publishing; set it again after.`] : [];
  });
  const changes = definitionChanges(current?.document, document);
  return {
    ok: true,
    name: document.name,
    document,
    ...(current ? { current: current.version } : {}),
    unchanged: current !== undefined && changes.words.length === 0,
    changes,
    replay,
    warnings: [...undone, ...parsed.warnings],
  };
}

/** A plan as lines for a terminal: the problems, or the change and what it breaks; then the lint's warnings. */
export function definitionPlanLines(plan: DefinitionPlan): string[] {
  const warnings = plan.warnings.map((warning) => `Warning: ${warning}`);
  if (!plan.ok)
    return [
      `The definition has ${plan.problems.length} problem(s):`,
      ...plan.problems.map((problem) => `  ${problem.path}: ${problem.message}`),
      ...warnings,
    ];
  const head =
    plan.current === undefined
      ? `${plan.name}: new, publishing it makes v1.`
      : plan.unchanged
        ? `${plan.name}: unchanged from v${plan.current}; publishing it would make no new version.`
        : `${plan.name} v${plan.current} → v${plan.current + 1}:`;
  return [
    head,
    ...plan.changes.words.map((words) => `  ${words}`),
    ...(plan.changes.breaking.length > 0
      ? [
          `Breaking for agents (${plan.changes.breaking.length}):`,
          ...plan.changes.breaking.map((words) => `  ${words}`),
        ]
      : []),
    ...replayLines(plan.name, plan.replay),
    ...warnings,
  ];
}

/** The tenant's current definitions, a line each. */
export async function definitionListLines(db: Database, tenantId: string): Promise<string[]> {
  const definitions = await currentDefinitions(db, tenantId);
  if (definitions.length === 0) return [`No action definitions in ${tenantId}.`];
  return definitions.map(definitionLine);
}

function definitionLine({ name, version, document, publishedAt, publishedBy, note }: StoredDefinition): string {
  const contracts = document.contracts.map((contract) => `v${contract.version} ${contract.status}`).join(', ');
  return (
    `${name} v${version}  ${document.title}  (contracts ${contracts}; ${document.rules.length} rule(s))\n` +
    `    published ${publishedAt.toISOString()} by ${publishedBy}: ${note}`
  );
}
