'use client';

import { Button } from '@/components/ui/button';

export default function DashboardError({ reset }: { error: Error; reset: () => void }) {
  return (
    <div
      role="alert"
      data-testid="page-error"
      className="rounded-lg border border-red-300 bg-red-50 p-6 dark:border-red-800 dark:bg-red-950"
    >
      <h1 className="font-semibold">This page could not be loaded.</h1>
      <p className="mt-1 text-sm">
        Nothing was changed. Check that the server can reach its database (
        <code className="font-mono">/api/health</code>), then try again.
      </p>
      <Button onClick={reset} className="mt-3">
        Try again
      </Button>
    </div>
  );
}
