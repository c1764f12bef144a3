import type { Metadata } from 'next';
import Link from 'next/link';
import { contractDocuments } from '@/lib/contracts/documents';
import { dashboardContext } from '@/lib/dashboard/context';

export const metadata: Metadata = { title: 'Contracts' };

export default async function ContractsPage() {
  await dashboardContext('/contracts');
  return (
    <section aria-labelledby="contracts-heading" className="space-y-4">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 id="contracts-heading" className="text-xl font-semibold">Contracts</h1>
        <Link href="/contracts/attempts" data-testid="rejected-attempts-link" className="text-sm underline">Rejected attempts and exhausted repair chains →</Link>
      </div>
      <p className="text-sm text-zinc-500">Each action&apos;s closed argument schema, per version. Agents fetch the same documents, with each version&apos;s output schema, from <code className="font-mono">GET /api/v1/contracts</code>.</p>
      {contractDocuments().actions.map((action) => (
        <article key={action.action} className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900" data-testid={`contract-${action.action}`}>
          <h2 className="font-semibold"><span className="font-mono">{action.action}</span> · {action.title} · scope <span className="font-mono">{action.scope}</span></h2>
          {action.versions.map((contract) => (
            <details key={contract.version} className="mt-2">
              <summary className="cursor-pointer text-sm">
                v{contract.version} <span className="ml-2 rounded-full bg-zinc-100 px-2 text-xs dark:bg-zinc-800">{contract.status}</span>
              </summary>
              <pre className="mt-2 overflow-x-auto rounded bg-zinc-100 p-3 text-xs dark:bg-zinc-800"><code>{JSON.stringify(contract.input, null, 2)}</code></pre>
            </details>
          ))}
        </article>
      ))}
    </section>
  );
}
