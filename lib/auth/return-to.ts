/**
 * Where to send a person after sign-in: only a path on this site. Absolute URLs, protocol-relative
 * `//host`, backslash tricks and control characters all fall back to the queue.
 */
export function safeReturnPath(raw: unknown, fallback = '/'): string {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 2048) return fallback;
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return fallback;
  if (raw.includes('\\') || [...raw].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f))
    return fallback;
  try {
    const url = new URL(raw, 'http://countersign.invalid');
    if (url.origin !== 'http://countersign.invalid') return fallback;
    if (url.pathname.startsWith('/signin') || url.pathname.startsWith('/api/')) return fallback;
    const path = `${url.pathname}${url.search}${url.hash}`;
    // Dot segments can collapse into `//host` after normalisation: check the result, not just the input.
    return path.startsWith('//') || path.startsWith('/\\') ? fallback : path;
  } catch {
    return fallback;
  }
}
