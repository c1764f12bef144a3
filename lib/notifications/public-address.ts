import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Whether an IP address is on the public internet, so that a tenant's webhook or Slack target
 * cannot make the server reach its own network. Everything special-purpose is refused: this
 * network and unspecified, private, carrier-grade NAT, loopback, link-local, documentation,
 * benchmarking, multicast, reserved and broadcast (IPv4); outside global unicast 2000::/3, plus
 * the special blocks inside it, unique-local, link-local, site-local and multicast (IPv6). An
 * IPv4 address embedded in IPv6 (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`) is judged as
 * that IPv4 address; other embeddings (compatible `::a.b.c.d`, 6to4, Teredo) are refused.
 */

const IPV4_REFUSED: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

// Inside 2000::/3: IETF protocol assignments with Teredo (2001::/23), documentation, 6to4.
const IPV6_REFUSED: [string, number][] = [
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['3fff::', 20],
];

const refused4 = new BlockList();
for (const [network, prefix] of IPV4_REFUSED) refused4.addSubnet(network, prefix, 'ipv4');
const refused6 = new BlockList();
for (const [network, prefix] of IPV6_REFUSED) refused6.addSubnet(network, prefix, 'ipv6');
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');

/** The eight 16-bit groups of a valid IPv6 address (a dotted IPv4 tail becomes the last two). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const first = head ? head.split(':') : [];
  const last = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? first : [...first, ...Array<string>(8 - first.length - last.length).fill('0'), ...last];
  return groups.map((group) => parseInt(group, 16));
}

const embeddedIpv4 = (groups: number[]) =>
  [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join('.');

export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(bare)) return !refused4.check(bare, 'ipv4');
  if (!isIPv6(bare)) return false;
  const groups = ipv6Groups(bare);
  const prefix96 = groups.slice(0, 6);
  if (prefix96.every((group, i) => group === (i === 5 ? 0xffff : 0))) return isPublicAddress(embeddedIpv4(groups));
  if (prefix96.every((group, i) => group === (i === 0 ? 0x64 : i === 1 ? 0xff9b : 0)))
    return isPublicAddress(embeddedIpv4(groups));
  return globalUnicast.check(bare, 'ipv6') && !refused6.check(bare, 'ipv6');
}
