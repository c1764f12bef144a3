import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardAddress, describePortProblem, type PortNeed, sharedPorts, unavailablePorts } from './ports';

/** A port this test holds open on 127.0.0.1, as another program would. */
let held: net.Server;
let heldPort = 0;
beforeAll(async () => {
  held = net.createServer();
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
  heldPort = (held.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => held.close(() => resolve())));

const need = (setting: string, port: number, hosts = ['127.0.0.1']): PortNeed => ({
  setting,
  what: `the ${setting}`,
  port,
  hosts,
});

describe('unavailablePorts', () => {
  it('finds a port another program listens on, whichever address of the need it is', async () => {
    expect(await unavailablePorts([need('PORT', heldPort)])).toEqual([
      { ...need('PORT', heldPort), host: '127.0.0.1', code: 'EADDRINUSE' },
    ]);
    // The wildcard address overlaps 127.0.0.1: a dashboard on 0.0.0.0 could not listen either.
    expect(await unavailablePorts([need('PORT', heldPort, ['0.0.0.0'])])).toMatchObject([
      { host: '0.0.0.0', code: 'EADDRINUSE' },
    ]);
  });

  it('finds a program on [::1] that http://localhost would reach before a dashboard on 127.0.0.1', async () => {
    const onIpv6 = net.createServer();
    const listening = await new Promise<boolean>((resolve) => {
      onIpv6.once('error', () => resolve(false));
      onIpv6.listen(0, '::1', () => resolve(true));
    });
    // A machine without IPv6 loopback has nothing there to find; the first test covers the rest.
    if (!listening) return;
    const port = (onIpv6.address() as net.AddressInfo).port;
    try {
      expect(await unavailablePorts([need('PORT', port, dashboardAddress('127.0.0.1', port).hosts)])).toMatchObject([
        { host: '::1', code: 'EADDRINUSE' },
      ]);
    } finally {
      await new Promise<void>((resolve) => onIpv6.close(() => resolve()));
    }
  });

  it('passes free ports and addresses this machine does not have, and leaves each free port free', async () => {
    const free = net.createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const port = (free.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => free.close(() => resolve()));
    // 192.0.2.1 (TEST-NET-1) is on no interface here: nothing can be listening on it.
    expect(await unavailablePorts([need('DEMO_SINK_PORT', port, ['127.0.0.1', '::1', '192.0.2.1'])])).toEqual([]);
    expect(await unavailablePorts([need('DEMO_SINK_PORT', port)])).toEqual([]);
  });
});

describe('sharedPorts', () => {
  it('names settings that give the same port', () => {
    expect(sharedPorts([need('PORT', 4000), need('DEMO_SYSTEMS_PORT', 4010), need('DEMO_SINK_PORT', 4000)])).toEqual([
      'PORT and DEMO_SINK_PORT name the same port, 4000: give each its own.',
    ]);
    expect(sharedPorts([need('PORT', 4000), need('DEMO_SYSTEMS_PORT', 4010)])).toEqual([]);
  });
});

describe('describePortProblem', () => {
  it.each([
    [
      'EADDRINUSE',
      '127.0.0.1',
      3000,
      'Port 3000 (PORT, the PORT) is already in use on 127.0.0.1:3000. Stop what is listening there, or choose another port: PORT=3100 npm run demo',
    ],
    ['EACCES', '0.0.0.0', 80, 'Port 80 (PORT, the PORT) needs privileges this user lacks on 0.0.0.0:80.'],
    [
      'EADDRINUSE',
      '::1',
      65_500,
      'is already in use on [::1]:65500. Stop what is listening there, or choose another port: PORT=65400 npm run demo',
    ],
  ])('%s on %s:%i', (code, host, port, says) => {
    expect(describePortProblem({ ...need('PORT', port), host, code })).toContain(says);
  });
});

describe('dashboardAddress', () => {
  it.each([
    ['127.0.0.1', { url: 'http://localhost:3000', hosts: ['127.0.0.1', '::1'] }],
    ['0.0.0.0', { url: 'http://localhost:3000', hosts: ['0.0.0.0'] }],
    ['::', { url: 'http://localhost:3000', hosts: ['::'] }],
    ['192.168.1.20', { url: 'http://192.168.1.20:3000', hosts: ['192.168.1.20'] }],
    ['fd00::20', { url: 'http://[fd00::20]:3000', hosts: ['fd00::20'] }],
  ])('HOST=%s', (host, address) => {
    expect(dashboardAddress(host, 3000)).toEqual(address);
  });
});
