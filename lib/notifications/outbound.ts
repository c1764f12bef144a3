import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { env, type Settings } from '@/lib/env';
import { normalizedHost, originOf } from '@/lib/input/origins';
import { isPublicAddress } from './public-address';

export type ResolvedAddress = { address: string; family: number };
/** Name to addresses; the system resolver unless a test gives its own. */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

/**
 * Where notifications may connect: public addresses only, except the exact origins the operator
 * lists in `NOTIFY_ALLOWED_PRIVATE_ORIGINS` (docs/design.md §9).
 */
export type TargetPolicy = { allowedPrivateOrigins: readonly string[]; resolve?: Resolve };

export function targetPolicy(settings: Pick<Settings, 'NOTIFY_ALLOWED_PRIVATE_ORIGINS'> = env()): TargetPolicy {
  return { allowedPrivateOrigins: settings.NOTIFY_ALLOWED_PRIVATE_ORIGINS };
}

export const TARGET_NOT_ALLOWED = 'target_not_allowed';

/** A target the guard let through: connect to these addresses only (never look the name up again). */
export type CheckedTarget = { url: URL; host: string; addresses: ResolvedAddress[] };

export type TargetCheck =
  | { ok: true; target: CheckedTarget }
  | { ok: false; code: typeof TARGET_NOT_ALLOWED; message: string }
  | { ok: false; code: 'unresolvable' };

const systemResolve: Resolve = (hostname) => lookup(hostname, { all: true, verbatim: true });

const notAllowed = (origin: string): TargetCheck => ({
  ok: false,
  code: TARGET_NOT_ALLOWED,
  message:
    `${origin} is not a public internet address (loopback, private, link-local, unique-local, unspecified, ` +
    `multicast and other special-use addresses are refused); only an operator can allow an exact origin, in ` +
    `NOTIFY_ALLOWED_PRIVATE_ORIGINS.`,
});

/**
 * Resolves an http(s) or smtp(s) target once and checks every address it resolves to: one
 * non-public address refuses the target (a name that answers with a public and a private address
 * would otherwise be a coin toss). `localhost` and its subdomains are loopback by definition
 * (RFC 6761) whatever the resolver says.
 */
export async function checkTarget(target: string | URL, policy: TargetPolicy): Promise<TargetCheck> {
  const url = new URL(target);
  const origin = originOf(url) ?? url.protocol;
  const allowed = policy.allowedPrivateOrigins.includes(origin);
  const host = normalizedHost(url).replace(/^\[|\]$/g, '');
  if (!allowed && (host === 'localhost' || host.endsWith('.localhost'))) return notAllowed(origin);
  let addresses: ResolvedAddress[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await (policy.resolve ?? systemResolve)(host);
    } catch {
      return { ok: false, code: 'unresolvable' };
    }
  }
  if (addresses.length === 0) return { ok: false, code: 'unresolvable' };
  if (!allowed && !addresses.every(({ address }) => isPublicAddress(address))) return notAllowed(origin);
  return { ok: true, target: { url, host, addresses } };
}

/** A `lookup` for http(s).request that answers with the checked addresses, so no second lookup can differ. */
export function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };
}
