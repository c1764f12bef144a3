# Countersign: one image for the dashboard (`start`, the default), the background worker
# (`worker`), database migrations (`migrate`) and the administration CLI (`cli <command> …`).
# Settings come from the environment only (docs/operations.md, .env.example); the image holds no
# secrets, no demo and no development dependencies, and refuses to start without AUTH_SECRET and
# SIGNING_KEYS.
#
#   docker build -t countersign .
#
# Stages: base (Debian, Node, user, settings), build + runtime (the default: npm ci, next build,
# bundles), and prebuilt, which takes a build already made (`npm test`'s container step).
# Where no registry answers, scripts/ci/base-images.sh builds the two FROM images locally first;
# `--network host` lets the build reach the npm registry through the machine's own network.

# ── base: Debian slim, the Node binary, the user, the settings and the entry point ──
FROM node:24-bookworm-slim AS node
FROM debian:bookworm-slim AS base
RUN groupadd --system --gid 10001 countersign \
 && useradd --system --uid 10001 --gid countersign --home-dir /app --no-create-home --shell /usr/sbin/nologin countersign \
 && mkdir -p /data && chown countersign:countersign /data
COPY --from=node /usr/local/bin/node /usr/local/bin/node
WORKDIR /app
# The standalone server listens on HOSTNAME:PORT; the embedded PGlite database (no DATABASE_URL)
# lives in /data, a volume. NEXT_MANUAL_SIG_HANDLE lets instrumentation.ts close the database on SIGTERM.
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    NEXT_MANUAL_SIG_HANDLE=true \
    HOSTNAME=0.0.0.0 \
    PORT=3000 \
    COUNTERSIGN_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["node", "docker/healthcheck.mjs"]
ENTRYPOINT ["/app/docker/entrypoint.sh"]
CMD ["start"]

# ── prebuilt (`--target prebuilt`): the image from a build already made on this machine ──
# `npm test` builds the standalone server once; scripts/container-test.ts --prebuilt lays it out as
# /app (the standalone server, .next/static, public, drizzle, the dist/ bundles, docker/) in a
# folder that is the whole build context, and builds this target from it instead of building the
# app again. (Docker's classic builder builds every stage, this one too, in a plain `docker build .`:
# it copies the repository into a stage the image never uses.)
FROM base AS prebuilt
COPY . ./
USER 10001:10001

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
RUN NEXT_OUTPUT=standalone node node_modules/next/dist/bin/next build && sh docker/bundle.sh dist

# ── runtime (the default): the standalone server and the bundles built above ──
FROM base AS runtime
COPY --from=build /src/.next/standalone ./
COPY --from=build /src/.next/static ./.next/static
COPY --from=build /src/public ./public
COPY --from=build /src/drizzle ./drizzle
COPY --from=build /src/dist ./dist
COPY docker/entrypoint.sh docker/healthcheck.mjs ./docker/
USER 10001:10001
