#!/bin/sh
# The image's one entry point: `start` (the dashboard, the default), `worker`, `migrate`, or
# `cli <command> …` (the same commands as `npm run cli --`). Settings come from the environment only.
set -e
command="${1:-start}"
[ "$#" -gt 0 ] && shift
case "$command" in
  start) exec node server.js "$@" ;;
  worker) exec node dist/worker.mjs "$@" ;;
  migrate) exec node dist/migrate.mjs "$@" ;;
  cli) exec node dist/cli.mjs "$@" ;;
  *)
    echo "Usage: docker run … countersign [start | worker | migrate | cli <command> …]" >&2
    echo "unknown command \"$command\"" >&2
    exit 2
    ;;
esac
