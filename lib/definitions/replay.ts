import { and, desc, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { agentKeys, proposals } from '@/db/schema';
import { firstBreach } from './evaluate';
import type { ParsedDefinition } from './parse';

/** How many of the action's newest proposals a plan replays. */
export const REPLAY_LIMIT = 100;

/** What the recent proposals of an action would meet under a new definition. */
export type Replay = {
  /** How many were replayed (at most REPLAY_LIMIT, newest first). */
  proposals: number;
  /** Their contract version is no longer accepted, or their arguments no longer match it. */
  invalid: number;
  /** Refused by a rule, by its code, most first. */
  refused: { code: string; count: number }[];
};

/**
 * The tenant's newest proposals of the definition's action, each checked against it as intake
 * would: its contract version accepted, its arguments valid, and its rules over the facts read
 * then and the proposing key's grants now. What other open proposals claimed is not replayed
 * (`open` is empty), so a rule on `open` reads as if the resource had no other open proposal.
 */
export async function replayRecent(db: Database, tenantId: string, definition: ParsedDefinition): Promise<Replay> {
  const rows = await db
    .select({
      payload: proposals.payload,
      contractVersion: proposals.contractVersion,
      facts: proposals.facts,
      agentKeyId: proposals.agentKeyId,
      grants: agentKeys.grants,
      createdAt: proposals.createdAt,
    })
    .from(proposals)
    .leftJoin(agentKeys, eq(agentKeys.id, proposals.agentKeyId))
    .where(and(eq(proposals.tenantId, tenantId), eq(proposals.action, definition.document.name)))
    .orderBy(desc(proposals.createdAt), desc(proposals.id))
    .limit(REPLAY_LIMIT);
  const refused = new Map<string, number>();
  let invalid = 0;
  for (const row of rows) {
    const contract = definition.contracts.find(
      (each) => each.version === row.contractVersion && (each.status === 'current' || each.status === 'supported'),
    );
    const { args } = row.payload;
    if (!contract || contract.validateArgs(args).length > 0) {
      invalid += 1;
      continue;
    }
    const agent = { id: row.agentKeyId ?? '', grants: row.grants ?? {} };
    const breach = firstBreach(definition, {
      args,
      facts: row.facts,
      open: { count: 0, total: 0 },
      agent,
      now: row.createdAt,
    });
    if (breach) refused.set(breach.code, (refused.get(breach.code) ?? 0) + 1);
  }
  return {
    proposals: rows.length,
    invalid,
    refused: [...refused].map(([code, count]) => ({ code, count })).sort((a, b) => b.count - a.count),
  };
}

/** A replay in words, for the plan. */
export function replayLines(name: string, replay: Replay): string[] {
  if (replay.proposals === 0) return [`No proposals of ${name} to replay yet.`];
  const refused = replay.refused.reduce((sum, each) => sum + each.count, 0);
  const kept = replay.proposals - replay.invalid - refused;
  return [
    `Replayed the newest ${replay.proposals} proposal(s) of ${name} through it (facts as read then, no other open ` +
      `proposals): ${kept} pass its contract and rules.`,
    ...(replay.invalid > 0
      ? [`  ${replay.invalid} would be refused: their contract version or arguments no longer match.`]
      : []),
    ...replay.refused.map((each) => `  ${each.count} would be refused by rule ${each.code}.`),
  ];
}
