import type { Metadata } from 'next';
import { z } from 'zod';
import { allActions } from '@/lib/actions/registry';
import { dashboardContext } from '@/lib/dashboard/context';

export const metadata: Metadata = { title: 'Contracts' };

export default async function ContractsPage() {
  await dashboardContext('/contracts');
  return (
    <section aria-labelledby="contracts-heading" className="space-y-4">
      <h1 id="contracts-heading" className="text-xl font-semibold">Contracts</h1>
      <p className="text-sm text-zinc-500">Each action&apos;s closed argument schema, per version. Agents fetch the same documents from <code className="font-mono">GET /api/v1/contracts</code> once the contracts issue lands.</p>
      {allActions().map((action) => (
        <article key={action.name} className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900" data-testid={`contract-${action.name}`}>
          <h2 className="font-semibold"><span className="font-mono">{action.name}</span> · {action.title} · scope <span className="font-mono">{action.scope}</span></h2>
          {action.contracts.map((contract) => (
            <details key={contract.version} className="mt-2">
              <summary className="cursor-pointer text-sm">
                v{contract.version} <span className="ml-2 rounded-full bg-zinc-100 px-2 text-xs dark:bg-zinc-800">{contract.status}</span>
              </summary>
              <pre className="mt-2 overflow-x-auto rounded bg-zinc-100 p-3 text-xs dark:bg-zinc-800"><code>{JSON.stringify(z.toJSONSchema(contract.args, { target: 'draft-2020-12' }), null, 2)}</code></pre>
            </details>
          ))}
        </article>
      ))}
    </section>
  );
}
