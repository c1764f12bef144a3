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

// The container image (Dockerfile) builds a self-contained server; `npm start` and the tests use the usual build.
const standalone = process.env.NEXT_OUTPUT === 'standalone';

// The demo's build (scripts/demo.ts) skips the type check, about 40% of a first build: `npm test`
// type-checks every change, and `npm run build`, the suite's build and the image's keep it. Turbopack
// keeps its build cache in .next/cache (on by default in Next 16.4: turbopackFileSystemCacheForBuild).
const demoBuild = process.env.COUNTERSIGN_DEMO_BUILD === '1';

const nextConfig: NextConfig = {
  typescript: { ignoreBuildErrors: demoBuild },
  // PGlite's WASM and data files must stay server-side, never copied into public static output.
  serverExternalPackages: ['@electric-sql/pglite', '@node-rs/argon2'],
  ...(standalone
    ? {
        output: 'standalone' as const,
        // The contracts page reads the corpus figures at run time; the image needs no image
        // optimizer (no next/image) and none of PGlite's extensions or source maps.
        outputFileTracingIncludes: { '**': ['corpus/last-run.json'] },
        outputFileTracingExcludes: {
          '**': [
            'node_modules/sharp/**',
            'node_modules/@img/**',
            'node_modules/@electric-sql/pglite/dist/**/*.{map,tar.gz}',
            'node_modules/@electric-sql/pglite/dist/contrib/**',
          ],
        },
      }
    : {}),
  poweredByHeader: false,
  experimental: appUrl ? { serverActions: { allowedOrigins: [new URL(appUrl).host] } } : {},
  async headers() {
    // Pages get a per-request nonce policy from proxy.ts; JSON routes load nothing at all.
    return [
      { source: '/:path*', headers: securityHeaders },
      { source: '/api/:path*', headers: [{ key: 'Content-Security-Policy', value: API_CONTENT_SECURITY_POLICY }] },
      {
        source: '/.well-known/:path*',
        headers: [{ key: 'Content-Security-Policy', value: API_CONTENT_SECURITY_POLICY }],
      },
    ];
  },
};

export default nextConfig;
