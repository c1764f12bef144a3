/**
 * The page Content-Security-Policy (docs/design.md §11): scripts only with this response's nonce, and
 * what those scripts load ('strict-dynamic'), so an injected inline script never runs. Styles
 * keep 'unsafe-inline' (React style attributes); they cannot run code.
 */
export function pageContentSecurityPolicy(nonce: string, development: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

/** Non-page responses (JSON, JWKS) load nothing and may not be framed. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** Two years, as the HSTS preload list asks; sent only when the dashboard is served over HTTPS. */
export const STRICT_TRANSPORT_SECURITY = 'max-age=63072000; includeSubDomains';
