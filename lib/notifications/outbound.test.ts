import { describe, expect, it } from 'vitest';
import { parseSettings, SettingsError } from '@/lib/env';
import { parseOriginList } from '@/lib/input/origins';
import { checkTarget, type Resolve } from './outbound';
import { isPublicAddress } from './public-address';

describe('isPublicAddress', () => {
  it.each([
    ['93.184.216.34', true],
    ['8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
    ['64:ff9b::808:808', true],
    ['127.0.0.1', false],
    ['127.255.255.254', false],
    ['0.0.0.0', false],
    ['0.1.2.3', false],
    ['10.0.0.1', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['192.168.1.1', false],
    ['100.64.0.1', false],
    ['169.254.169.254', false],
    ['192.0.2.10', false],
    ['198.18.0.1', false],
    ['224.0.0.1', false],
    ['239.255.255.250', false],
    ['255.255.255.255', false],
    ['240.0.0.1', false],
    ['::1', false],
    ['::', false],
    ['[::1]', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::ffff:10.0.0.1', false],
    ['::127.0.0.1', false],
    ['::7f00:1', false],
    ['64:ff9b::7f00:1', false],
    ['64:ff9b::a9fe:a9fe', false],
    ['fe80::1', false],
    ['fe80::1%eth0', false],
    ['fc00::1', false],
    ['fd12:3456::1', false],
    ['fec0::1', false],
    ['ff02::1', false],
    ['2001:db8::1', false],
    ['2002:7f00:1::1', false],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false],
    ['100::1', false],
    ['not an address', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

const none = { allowedPrivateOrigins: [] };
const noLookups: Resolve = async (hostname) => {
  throw new Error(`unexpected lookup of ${hostname}`);
};

describe('checkTarget refuses every spelling of a non-public target', () => {
  it.each([
    'http://127.0.0.1:4030/hook',
    'http://localhost:4030/hook',
    'http://LOCALHOST./hook',
    'http://localhost./hook',
    'http://hooks.localhost/x',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0x7f000001/',
    'http://017700000001/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://127.0.0.1./',
    'http://%31%32%37.0.0.1/',
    'http://0.0.0.0:80/',
    'http://0/',
    'http://[::1]/',
    'http://[::]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[0:0:0:0:0:ffff:7f00:1]/',
    'http://[::127.0.0.1]/',
    'http://[64:ff9b::127.0.0.1]/',
    'http://[fe80::1]/',
    'http://[fd00::1]/',
    'https://169.254.169.254/latest/meta-data',
    'https://10.1.2.3/',
    'https://192.168.0.1:8443/',
    'https://172.20.0.5/',
    'https://100.100.100.100/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'smtp://127.0.0.1:25',
    'smtp://0x7f.1:25',
  ])('%s', async (target) => {
    expect(await checkTarget(target, { ...none, resolve: noLookups })).toMatchObject({
      ok: false,
      code: 'target_not_allowed',
    });
  });
});

describe('checkTarget with names', () => {
  const resolver =
    (answers: Record<string, string[]>): Resolve =>
    async (hostname) => {
      const addresses = answers[hostname];
      if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
  const resolve = resolver({
    'hooks.example.com': ['93.184.216.34', '2606:2800:220:1::1'],
    'intranet.example.com': ['10.0.0.7'],
    'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
    'v6private.example.com': ['fd00::5'],
    'mapped.example.com': ['::ffff:192.168.0.1'],
  });

  it.each([
    ['https://hooks.example.com/x', true],
    ['https://hooks.example.com./x', true],
    ['https://intranet.example.com/x', false],
    ['https://mixed.example.com/x', false],
    ['https://v6private.example.com/x', false],
    ['https://mapped.example.com/x', false],
  ])('%s is allowed: %s', async (target, allowed) => {
    const checked = await checkTarget(target, { ...none, resolve });
    expect(checked.ok).toBe(allowed);
    if (!allowed)
      expect(checked).toMatchObject({
        code: 'target_not_allowed',
        message: expect.stringContaining('NOTIFY_ALLOWED_PRIVATE_ORIGINS'),
      });
  });

  it('keeps the addresses it checked, to connect to them and nothing else', async () => {
    expect(await checkTarget('https://hooks.example.com/x', { ...none, resolve })).toMatchObject({
      ok: true,
      target: {
        host: 'hooks.example.com',
        addresses: [{ address: '93.184.216.34' }, { address: '2606:2800:220:1::1' }],
      },
    });
  });

  it('a name that resolves nowhere is unresolvable, not refused', async () => {
    expect(await checkTarget('https://nowhere.example.com/x', { ...none, resolve })).toEqual({
      ok: false,
      code: 'unresolvable',
    });
  });

  it('the system resolver answers for localhost with loopback: refused', async () => {
    expect(await checkTarget('http://localhost:4030/', none)).toMatchObject({ ok: false, code: 'target_not_allowed' });
  });
});

describe('the allow list is exact origins', () => {
  const allowed = { allowedPrivateOrigins: ['http://127.0.0.1:4030', 'smtp://127.0.0.1:4025'], resolve: noLookups };

  it.each([
    ['http://127.0.0.1:4030/webhook', true],
    ['http://127.0.0.1:4030/slack?x=1', true],
    ['http://2130706433:4030/webhook', true],
    ['smtp://127.0.0.1:4025', true],
    ['http://127.0.0.1:4031/webhook', false],
    ['http://127.0.0.1/webhook', false],
    ['https://127.0.0.1:4030/webhook', false],
    ['http://localhost:4030/webhook', false],
    ['http://[::1]:4030/webhook', false],
    ['http://[::ffff:127.0.0.1]:4030/webhook', false],
    ['http://127.0.0.2:4030/webhook', false],
    ['smtp://127.0.0.1:25', false],
  ])('%s is allowed: %s', async (target, ok) => {
    expect((await checkTarget(target, allowed)).ok).toBe(ok);
  });
});

describe('NOTIFY_ALLOWED_PRIVATE_ORIGINS', () => {
  it.each([
    ['http://127.0.0.1:4030', ['http://127.0.0.1:4030']],
    ['http://127.0.0.1:4030, smtp://127.0.0.1:4025', ['http://127.0.0.1:4030', 'smtp://127.0.0.1:4025']],
    ['https://[::1]:8443,http://localhost:80', ['https://[::1]:8443', 'http://localhost:80']],
    ['http://127.0.0.1:4030,http://127.0.0.1:4030', ['http://127.0.0.1:4030']],
  ])('%s lists %j', (text, origins) => {
    expect(parseOriginList(text)).toEqual({ origins });
    expect(parseSettings({ NOTIFY_ALLOWED_PRIVATE_ORIGINS: text }).NOTIFY_ALLOWED_PRIVATE_ORIGINS).toEqual(origins);
  });

  it('is empty when unset', () => {
    expect(parseSettings({}).NOTIFY_ALLOWED_PRIVATE_ORIGINS).toEqual([]);
    expect(parseSettings({ NOTIFY_ALLOWED_PRIVATE_ORIGINS: ' ' }).NOTIFY_ALLOWED_PRIVATE_ORIGINS).toEqual([]);
  });

  it.each([
    ['http://127.0.0.1', 'write exactly scheme://host:port, here http://127.0.0.1:80'],
    ['http://127.0.0.1:4030/', 'here http://127.0.0.1:4030'],
    ['http://127.0.0.1:4030/webhook', 'here http://127.0.0.1:4030'],
    ['http://user@127.0.0.1:4030', 'here http://127.0.0.1:4030'],
    ['http://0x7f.1:4030', 'here http://127.0.0.1:4030'],
    ['HTTP://LOCALHOST:4030', 'here http://localhost:4030'],
    ['127.0.0.1:4030', 'is not scheme://host:port'],
    ['ftp://127.0.0.1:21', 'the scheme must be http, https, smtp or smtps'],
    ['http://127.0.0.1:4030,', 'is not scheme://host:port'],
    ['*', 'is not scheme://host:port'],
  ])('refuses %s', (text, problem) => {
    expect(parseOriginList(text)).toEqual({ problem: expect.stringContaining(problem) });
    expect(() => parseSettings({ NOTIFY_ALLOWED_PRIVATE_ORIGINS: text })).toThrow(SettingsError);
  });
});
