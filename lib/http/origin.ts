import { env, type Settings } from '@/lib/env';
import { Refusal } from '@/lib/errors/refusal';

type ProxySettings = Pick<Settings, 'APP_URL' | 'TRUST_PROXY'>;

const firstValue = (value: string | null) => value?.split(',')[0]?.trim() || undefined;

/**
 * The origin the browser targeted. Next reports `request.url` as localhost whatever address was
 * used, so it comes from the Host header — or, only with TRUST_PROXY=1, from the proxy's
 * X-Forwarded-Host/-Proto. The scheme without a proxy is the server's own.
 */
export function targetedOrigin(request: Request, settings: ProxySettings = env()): string | undefined {
  const trustProxy = settings.TRUST_PROXY;
  const host =
    (trustProxy ? firstValue(request.headers.get('x-forwarded-host')) : undefined) ?? request.headers.get('host');
  if (!host || /[/\\@?#\s]/.test(host)) return undefined;
  const scheme =
    (trustProxy ? firstValue(request.headers.get('x-forwarded-proto')) : undefined) ??
    new URL(request.url).protocol.slice(0, -1);
  if (scheme !== 'http' && scheme !== 'https') return undefined;
  try {
    return new URL(`${scheme}://${host}`).origin;
  } catch {
    return undefined;
  }
}

/** The public origin for links: APP_URL when set, else the origin the request was made to. */
export function publicOrigin(request: Request, settings: ProxySettings = env()): string {
  const configured = settings.APP_URL;
  return configured ? new URL(configured).origin : (targetedOrigin(request, settings) ?? new URL(request.url).origin);
}

/** Dashboard mutations must come from the dashboard itself (docs/design.md §11). */
export function assertSameOrigin(request: Request, settings: ProxySettings = env()): void {
  const origin = request.headers.get('origin');
  const allowed = new Set<string>();
  const targeted = targetedOrigin(request, settings);
  if (targeted) allowed.add(targeted);
  const configured = settings.APP_URL;
  if (configured) allowed.add(new URL(configured).origin);
  if (!origin || !allowed.has(origin)) {
    throw new Refusal(
      'cross_origin',
      'This request must come from the Countersign dashboard (same-origin Origin header).',
    );
  }
}

/**
 * Routes for programs rather than browsers (MCP: servers MUST validate Origin): no Origin is a
 * non-browser client and passes; any Origin present is held to assertSameOrigin, so a page on
 * another origin is refused with the same 403.
 */
export function assertNoForeignOrigin(request: Request, settings: ProxySettings = env()): void {
  if (request.headers.has('origin')) assertSameOrigin(request, settings);
}
