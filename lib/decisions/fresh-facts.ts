import { eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { type Proposal, proposals } from '@/db/schema';
import { BoundedLru } from '@/lib/cache/lru';
import { notFound } from '@/lib/errors/refusal';
import type { FactsSnapshot, FreshFacts } from '@/lib/proposals/fresh-facts';
import { getProposal, tenantOfProposal } from '@/lib/proposals/lookup';
import { type SystemsClient, SystemsUnavailableError } from '@/lib/systems/client';
import { describeDrift, type LiveRead, readLive } from './live';
import { judgeLive } from './recheck';

/** How long one answer is served to whoever looks next, so previewing does not hammer the system of record. */
export const FRESH_FACTS_TTL_MS = 5_000;
/** The longest a look waits for the system of record before answering "unavailable". */
export const FRESH_FACTS_TIMEOUT_MS = 2_000;

type Entry = { storedAt: number; answer: Promise<FreshFacts> };

/** Answers per proposal id, in flight or recent (per process). */
export class FactsCache {
  private readonly entries = new BoundedLru<string, Entry>({ maxEntries: 5_000, maxWeight: 5_000, weigh: () => 1 });
  constructor(
    private readonly clock: () => number = () => performance.now(),
    private readonly ttlMs = FRESH_FACTS_TTL_MS,
  ) {}

  /** The recent answer for `id`, or `read()`'s (shared by everyone asking meanwhile). A failure is not kept. */
  get(id: string, read: () => Promise<FreshFacts>): Promise<FreshFacts> {
    const entry = this.entries.get(id);
    if (entry && this.clock() - entry.storedAt < this.ttlMs) return entry.answer;
    const answer = read();
    this.entries.set(id, { storedAt: this.clock(), answer });
    void answer.catch(() => {
      if (this.entries.get(id)?.answer === answer) this.entries.delete(id);
    });
    return answer;
  }
}

const shared = new FactsCache();

export type FreshFactsOptions = { now?: Date; timeoutMs?: number; cache?: FactsCache };

/** The tenants the viewer is a member of (any role): who may look. */
export type FactsViewer = { memberships: { tenantId: string }[] };

/**
 * Reads a proposal's facts again from the system of record when someone looks at it (the queue's
 * preview, its page): bounded by `timeoutMs` ("unavailable" when it does not answer, nothing
 * changed) and answered from a cache for FRESH_FACTS_TTL_MS per proposal. What it finds is judged
 * as the background sweep judges it (./recheck.ts): a proposal that no longer holds ends stale,
 * one that moved is marked "changed since proposed". Members of the proposal's tenant only; any
 * other id is not found.
 */
export async function freshFacts(
  db: Database,
  systems: SystemsClient,
  viewer: FactsViewer,
  proposalId: string,
  options: FreshFactsOptions = {},
): Promise<FreshFacts> {
  const tenantId = await tenantOfProposal(db, proposalId);
  if (!tenantId || !viewer.memberships.some((m) => m.tenantId === tenantId)) throw notFound();
  return (options.cache ?? shared).get(proposalId, () => check(db, systems, tenantId, proposalId, options));
}

async function check(
  db: Database,
  systems: SystemsClient,
  tenantId: string,
  proposalId: string,
  options: FreshFactsOptions,
): Promise<FreshFacts> {
  const proposal = await getProposal(db, tenantId, proposalId);
  if (!proposal) throw notFound();
  const now = options.now ?? new Date();
  const answer = (state: FreshFacts['state'], current: FactsSnapshot | null, note: string | null): FreshFacts => ({
    proposalId,
    state,
    checkedAt: now.toISOString(),
    atProposal: { at: proposal.createdAt.toISOString(), detail: meaningDetail(proposal), facts: proposal.facts },
    now: current,
    note,
  });
  if (proposal.status !== 'pending_approval' || proposal.expiresAt.getTime() <= now.getTime())
    return answer('closed', null, null);

  let live: LiveRead;
  try {
    live = await within(readLive(db, systems, proposal), options.timeoutMs ?? FRESH_FACTS_TIMEOUT_MS);
  } catch (error) {
    if (!(error instanceof SystemsUnavailableError)) throw error;
    return answer(
      'unavailable',
      null,
      error.reason === 'timeout' ? 'no answer in time' : 'the system of record could not be reached',
    );
  }
  const current: FactsSnapshot = live.resolution
    ? { detail: live.resolution.detail, facts: live.resolution.facts }
    : { detail: null, facts: {} };

  const judged = await db.transaction(async (tx) => {
    // Someone deciding holds the row: their decision reads the system of record itself; judge nothing here.
    const [locked] = await tx
      .select()
      .from(proposals)
      .where(eq(proposals.id, proposal.id))
      .for('update', { skipLocked: true })
      .limit(1);
    if (!locked || locked.status !== 'pending_approval') return undefined;
    return judgeLive(tx, locked, live, now);
  });
  if (!judged) {
    const moved = describeDrift(proposal, live);
    return answer(moved ? 'changed' : 'fresh', current, moved ?? null);
  }
  if (judged.outcome === 'stale') return answer('stale', current, judged.verdict.reason);
  if (judged.outcome === 'drifted') return answer('changed', current, judged.drift.description);
  return answer('fresh', current, null);
}

/** The line Meaning wrote at intake, when it passed. */
function meaningDetail(proposal: Proposal): string | null {
  const meaning = proposal.gates.find((gate) => gate.gate === 'meaning' && gate.ok);
  return meaning?.detail ?? null;
}

/** `work`, or a SystemsUnavailableError('timeout') once `ms` pass first. */
async function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SystemsUnavailableError('timeout')), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
