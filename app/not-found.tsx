import Link from 'next/link';

export default function NotFound() {
  return (
    <main className="mx-auto max-w-md px-4 py-16 text-center" data-testid="not-found">
      <h1 className="text-xl font-semibold">Not found</h1>
      <p className="mt-2 text-sm text-zinc-500">
        There is nothing here you can see. It may belong to another tenant, or the link may be wrong.
      </p>
      <Link href="/" className="mt-4 inline-block underline">
        Back to the queue
      </Link>
    </main>
  );
}
