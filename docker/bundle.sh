#!/bin/sh
# The worker, migrate and CLI entry points as ES module bundles in dist/ (beside the standalone
# server in the image), from the repository root with its node_modules: run by the Dockerfile's
# build stage, and by scripts/container-test.ts on the suite's own build (--prebuilt).
set -eu
node_modules/.bin/esbuild scripts/worker.ts scripts/migrate.ts scripts/cli.ts \
  --bundle --platform=node --target=node24 --format=esm --splitting --minify-syntax \
  --outdir="${1:-dist}" --out-extension:.js=.mjs --log-level=warning \
  --external:@node-rs/argon2 --external:@electric-sql/pglite \
  "--banner:js=import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);"
