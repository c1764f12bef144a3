/** Placeholder rows the size of the queue, so nothing jumps when the data arrives. */
export default function Loading() {
  return (
    <div role="status" aria-busy="true" aria-label="Loading" data-testid="loading" className="space-y-3">
      <div className="h-7 w-48 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
      {[0, 1, 2].map((row) => (
        <div key={row} className="h-12 animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800" />
      ))}
    </div>
  );
}
