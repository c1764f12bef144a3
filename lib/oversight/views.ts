import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '@/db';
import { memberships, proposals, proposalViews, viewChannelEnum, type ViewChannel } from '@/db/schema';
import { notFound } from '@/lib/errors/domain-error';
import type { RequestBody } from '@/lib/input/request-body';

/** The query parameter a notification link carries (`/proposals/<id>?via=notification`), so the view it leads to is counted as the notification's. */
export const VIA_NOTIFICATION = 'notification';

/** The channel a server-rendered proposal page counts its view under: the notification's when the link says so, else the page's. */
export function pageChannel(via: string | string[] | undefined): ViewChannel {
  return via === VIA_NOTIFICATION ? 'notification' : 'page';
}

export const viewInput = z.strictObject({ channel: z.enum(viewChannelEnum.enumValues, { error: `must be one of ${viewChannelEnum.enumValues.join(', ')}` }) });

/** `POST /api/v1/proposals/:id/views`. */
export const viewRequest: RequestBody<z.infer<typeof viewInput>> = {
  schema: viewInput,
  code: 'invalid_view',
  message: 'The view is not valid: send {"channel": "queue" | "page" | "notification"}.',
};

export type ViewRecord = { tenantId: string; userId: string; proposalId: string; channel: ViewChannel; at?: Date };

/**
 * Records when a person first opened a proposal of the tenant (docs/oversight.md): once per person
 * and proposal (the first insert wins; later ones change nothing), and only while it waits for a
 * decision, the only time a first look can precede one. The proposal must be the tenant's and the
 * person its member, else 404 and nothing is written: one statement, so neither is checked apart
 * from the write.
 */
export async function recordView(db: Database, view: ViewRecord): Promise<{ recorded: boolean }> {
  const at = view.at ?? new Date();
  const rows = await db
    .select({ status: proposals.status })
    .from(proposals)
    .innerJoin(memberships, and(eq(memberships.tenantId, proposals.tenantId), eq(memberships.userId, view.userId)))
    .where(and(eq(proposals.id, view.proposalId), eq(proposals.tenantId, view.tenantId)));
  const proposal = rows[0];
  if (!proposal) throw notFound();
  if (proposal.status !== 'pending_approval') return { recorded: false };
  const inserted = await db
    .insert(proposalViews)
    .values({ tenantId: view.tenantId, proposalId: view.proposalId, userId: view.userId, channel: view.channel, firstSeenAt: at })
    .onConflictDoNothing()
    .returning({ at: sql`1` });
  return { recorded: inserted.length > 0 };
}
