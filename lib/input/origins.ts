/**
 * Origins as `NOTIFY_ALLOWED_PRIVATE_ORIGINS` lists them: `scheme://host:port`, always with the
 * port, the host spelled as the WHATWG URL parser normalizes it (`0x7f.1` is `127.0.0.1`,
 * `[::ffff:127.0.0.1]` is `[::ffff:7f00:1]`, no trailing dot), so one origin has one spelling.
 */

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'smtp:': 587, 'smtps:': 465 };

/** The URL's host as the http parser normalizes it (smtp: URLs keep the host as typed), without a trailing dot. */
export function normalizedHost(url: URL): string {
  const host =
    url.protocol === 'http:' || url.protocol === 'https:' ? url.hostname : new URL(`http://${url.host}`).hostname;
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/** `scheme://host:port` of an http(s) or smtp(s) URL; undefined for another scheme. */
export function originOf(url: URL): string | undefined {
  const fallback = DEFAULT_PORTS[url.protocol];
  if (fallback === undefined) return undefined;
  return `${url.protocol}//${normalizedHost(url)}:${url.port || fallback}`;
}

/** Parses the comma-separated list strictly: each entry exactly `scheme://host:port` in its one spelling. */
export function parseOriginList(text: string): { origins: string[] } | { problem: string } {
  const origins: string[] = [];
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      return { problem: `has "${entry}", which is not scheme://host:port` };
    }
    const origin = originOf(url);
    if (!origin) return { problem: `has "${entry}": the scheme must be http, https, smtp or smtps` };
    if (entry !== origin)
      return {
        problem:
          `has "${entry}": write exactly scheme://host:port, here ${origin} (no path, user, query or ` +
          `default-port shorthand)`,
      };
    if (!origins.includes(origin)) origins.push(origin);
  }
  return { origins };
}
