import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { RevisionForm } from '@/components/revision-form';
import { contractDocuments } from '@/lib/contracts/documents';
import { dashboardContext } from '@/lib/dashboard/context';
import { getDb } from '@/lib/database';
import { readProposalView } from '@/lib/decisions/proposal-view';
import { editingView } from '@/lib/decisions/revision-view';
import { recordServed } from '@/lib/oversight/views';
import { tenantOfProposal } from '@/lib/proposals/lookup';
import { systemsClient } from '@/lib/systems/client';

export const metadata: Metadata = { title: 'Edit proposal' };

export default async function EditProposalPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const context = await dashboardContext(`/proposals/${id}/edit`);
  const db = await getDb();
  const tenantId = await tenantOfProposal(db, id);
  const member = context.operator.memberships.find((m) => m.tenantId === tenantId);
  const view = member
    ? await readProposalView(db, member.tenantId, id, { userId: context.operator.userId, role: member.role })
    : undefined;
  if (!view) notFound();
  const { proposal } = view;
  // Its arguments are served to the person here too: a first look like the page's (docs/oversight.md).
  await recordServed(db, proposal, { userId: context.operator.userId, channel: 'page' });
  const version = contractDocuments()
    .actions.find((a) => a.action === proposal.action)
    ?.versions.find((v) => v.version === proposal.contractVersion);
  const fields = (version?.input as { properties?: Record<string, object> } | undefined)?.properties ?? {};
  // The same rule as the proposal page's "Edit…" link and the API's viewer.canEdit.
  const editable = view.viewer?.canEdit === true;
  return (
    <section className="max-w-xl space-y-4" aria-labelledby="edit-heading">
      <Link href={`/proposals/${id}`} className="text-sm text-zinc-500 hover:underline">
        ← Back to the proposal
      </Link>
      <h1 id="edit-heading" className="text-xl font-semibold">
        Edit {proposal.action} <span className="font-mono text-base">{proposal.id}</span>
      </h1>
      {editable ? (
        <RevisionForm
          proposalId={proposal.id}
          fields={fields}
          args={proposal.payload.args}
          editing={await editingView(db, systemsClient(), proposal)}
        />
      ) : (
        <p data-testid="revision-unavailable" className="text-sm">
          Only a pending proposal can be edited, by someone who may decide it.
        </p>
      )}
    </section>
  );
}
