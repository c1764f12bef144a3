# Countersign: one image for the dashboard (`start`, the default), the background worker
# (`worker`), database migrations (`migrate`) and the administration CLI (`cli <command> …`).
# Settings come from the environment only (docs/operations.md, .env.example); the image holds no
# secrets, no demo and no development dependencies, and refuses to start without AUTH_SECRET and
# SIGNING_KEYS.
#
#   docker build -t countersign .
#
# Where no registry answers, scripts/ci/base-images.sh builds the two FROM images locally first;
# `--network host` lets the build reach the npm registry through the machine's own network.

# ── build: the production build (Next standalone) and the worker, migrate and CLI bundles ──
FROM node:24-bookworm-slim AS build
WORKDIR /src
ENV NEXT_TELEMETRY_DISABLED=1
COPY package.json package-lock.json ./
# Behind a proxy that re-signs TLS, its CA certificates (PEM text, public) as a build argument:
#   --build-arg EXTRA_CA_CERTS="$(cat /usr/local/share/ca-certificates/*.crt)"
# They reach this stage only, never the image.
ARG EXTRA_CA_CERTS=""
RUN if [ -n "$EXTRA_CA_CERTS" ]; then printf '%s\n' "$EXTRA_CA_CERTS" > /tmp/extra-ca.pem; export NODE_EXTRA_CA_CERTS=/tmp/extra-ca.pem; fi \
 && npm ci --no-audit --no-fund --loglevel=error
COPY . .
RUN NEXT_OUTPUT=standalone node node_modules/next/dist/bin/next build \
 && node_modules/.bin/esbuild scripts/worker.ts scripts/migrate.ts scripts/cli.ts \
      --bundle --platform=node --target=node24 --format=esm --splitting --minify-syntax \
      --outdir=dist --out-extension:.js=.mjs --log-level=warning \
      --external:@node-rs/argon2 --external:@electric-sql/pglite \
      "--banner:js=import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);"

# ── runtime: Debian slim, the Node binary, the standalone server and the bundles ──
FROM debian:bookworm-slim AS runtime
RUN groupadd --system --gid 10001 countersign \
 && useradd --system --uid 10001 --gid countersign --home-dir /app --no-create-home --shell /usr/sbin/nologin countersign \
 && mkdir -p /data && chown countersign:countersign /data
COPY --from=build /usr/local/bin/node /usr/local/bin/node
WORKDIR /app
COPY --from=build /src/.next/standalone ./
COPY --from=build /src/.next/static ./.next/static
COPY --from=build /src/public ./public
COPY --from=build /src/drizzle ./drizzle
COPY --from=build /src/dist ./dist
COPY docker/entrypoint.sh docker/healthcheck.mjs ./docker/
# The standalone server listens on HOSTNAME:PORT; the embedded PGlite database (no DATABASE_URL)
# lives in /data, a volume. NEXT_MANUAL_SIG_HANDLE lets instrumentation.ts close the database on SIGTERM.
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    NEXT_MANUAL_SIG_HANDLE=true \
    HOSTNAME=0.0.0.0 \
    PORT=3000 \
    COUNTERSIGN_DATA_DIR=/data
USER 10001:10001
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["node", "docker/healthcheck.mjs"]
ENTRYPOINT ["/app/docker/entrypoint.sh"]
CMD ["start"]
