import type { NextConfig } from 'next';
import { env } from './lib/env';
import { API_CONTENT_SECURITY_POLICY } from './lib/http/csp';

const securityHeaders = [
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'same-origin' },
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=()' },
  { key: 'X-Robots-Tag', value: 'noindex, nofollow' },
];

// Next refuses a server action whose Origin differs from Host/X-Forwarded-Host; behind a proxy
// that rewrites Host, the configured public origin is the one browsers use.
const appUrl = env().APP_URL;

const nextConfig: NextConfig = {
  // PGlite's WASM and data files must stay server-side, never copied into public static output.
  serverExternalPackages: ['@electric-sql/pglite', '@node-rs/argon2'],
  poweredByHeader: false,
  experimental: appUrl ? { serverActions: { allowedOrigins: [new URL(appUrl).host] } } : {},
  async headers() {
    // Pages get a per-request nonce policy from proxy.ts; JSON routes load nothing at all.
    return [
      { source: '/:path*', headers: securityHeaders },
      { source: '/api/:path*', headers: [{ key: 'Content-Security-Policy', value: API_CONTENT_SECURITY_POLICY }] },
      { source: '/.well-known/:path*', headers: [{ key: 'Content-Security-Policy', value: API_CONTENT_SECURITY_POLICY }] },
    ];
  },
};

export default nextConfig;
