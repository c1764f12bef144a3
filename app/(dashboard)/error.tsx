'use client';

export default function DashboardError({ reset }: { error: Error; reset: () => void }) {
  return (
    <div role="alert" data-testid="page-error" className="rounded-lg border border-red-300 bg-red-50 p-6 dark:border-red-800 dark:bg-red-950">
      <h1 className="font-semibold">This page could not be loaded.</h1>
      <p className="mt-1 text-sm">Nothing was changed. Check that the server can reach its database (<code className="font-mono">/api/health</code>), then try again.</p>
      <button type="button" onClick={reset} className="mt-3 rounded-md border border-zinc-300 px-3 py-1.5 text-sm dark:border-zinc-700">Try again</button>
    </div>
  );
}
