import net from 'node:net';

/**
 * The ports `npm run demo` listens on, checked before it prints anything: a port in use would
 * otherwise surface as EADDRINUSE from a child after the sign-ins were already on the screen.
 */

export type PortNeed = {
  /** The setting that chooses it, e.g. PORT. */
  setting: string;
  /** What listens there, for the message. */
  what: string;
  port: number;
  /** Every address it must be free on (the dashboard's printed localhost URL may reach ::1 first). */
  hosts: string[];
};

export type PortProblem = PortNeed & { host: string; code: string };

/** Whether one address:port can be listened on; undefined when it can, else the system's code. */
function probe(port: number, host: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'EUNKNOWN'));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/** Addresses a machine may simply not have (no IPv6 loopback): nothing can be listening there. */
const NOT_ON_THIS_MACHINE = new Set(['EADDRNOTAVAIL', 'EAFNOSUPPORT']);

/** The needs that cannot be met, one entry per port (the first address that refused it). */
export async function unavailablePorts(needs: PortNeed[]): Promise<PortProblem[]> {
  const problems: PortProblem[] = [];
  for (const need of needs) {
    for (const host of need.hosts) {
      const code = await probe(need.port, host);
      if (code && !NOT_ON_THIS_MACHINE.has(code)) {
        problems.push({ ...need, host, code });
        break;
      }
    }
  }
  return problems;
}

/** Two settings naming one port: the second listener would fail just as if the port were taken. */
export function sharedPorts(needs: PortNeed[]): string[] {
  const bySetting = new Map<number, string[]>();
  for (const need of needs) bySetting.set(need.port, [...(bySetting.get(need.port) ?? []), need.setting]);
  return [...bySetting]
    .filter(([, settings]) => settings.length > 1)
    .map(([port, settings]) => `${settings.join(' and ')} name the same port, ${port}: give each its own.`);
}

/** Addresses reached by http://localhost:<port> as well as by the bound address itself. */
const LOCAL = new Set(['127.0.0.1', '0.0.0.0', '::', 'localhost']);

/**
 * Where the dashboard answers and which addresses its port must be free on. Bound to 127.0.0.1,
 * http://localhost still reaches it: a browser or fetch that resolves localhost to ::1 first is
 * refused there and falls back to 127.0.0.1 — unless something else listens on [::1], so that is
 * checked too.
 */
export function dashboardAddress(host: string, port: number): { url: string; hosts: string[] } {
  if (LOCAL.has(host))
    return {
      url: `http://localhost:${port}`,
      hosts: host === '127.0.0.1' || host === 'localhost' ? ['127.0.0.1', '::1'] : [host],
    };
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, hosts: [host] };
}

/** What to tell the person: which port, who needs it, and the setting that moves it. */
export function describePortProblem(problem: PortProblem): string {
  const address = `${problem.host.includes(':') ? `[${problem.host}]` : problem.host}:${problem.port}`;
  const reason =
    problem.code === 'EADDRINUSE'
      ? 'is already in use'
      : problem.code === 'EACCES'
        ? 'needs privileges this user lacks'
        : `cannot be listened on (${problem.code})`;
  const other = problem.port >= 65_000 ? problem.port - 100 : problem.port + 100;
  return (
    `Port ${problem.port} (${problem.setting}, ${problem.what}) ${reason} on ${address}. Stop what is listening ` +
    `there, or choose another port: ${problem.setting}=${other} npm run demo`
  );
}
