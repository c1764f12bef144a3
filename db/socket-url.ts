/**
 * libpq's way of naming a Unix-domain socket in a URL, `?host=/var/run/postgresql`, which
 * postgres.js does not read from a URL: the URL without it, and the socket folder as the `host`
 * option. A PostgreSQL on the same machine answers over its socket for about half the CPU and
 * latency of loopback TCP per statement (docs/operations.md).
 */
export function socketAware(url: string): { url: string; host?: string } {
  const parsed = new URL(url);
  const host = parsed.searchParams.get('host');
  if (!host?.startsWith('/')) return { url };
  parsed.searchParams.delete('host');
  return { url: parsed.toString(), host };
}
