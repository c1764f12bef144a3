#!/bin/sh
# The start-up of the official postgres image, as far as compose.yaml uses it: a first start
# initialises $PGDATA with POSTGRES_USER (superuser) and POSTGRES_PASSWORD (scram-sha-256 from any
# address), creates POSTGRES_DB, runs /docker-entrypoint-initdb.d (*.sh executed when executable,
# else sourced; *.sql through psql) against a server on the local socket only, then runs the server
# listening on every interface.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
  POSTGRES_USER="${POSTGRES_USER:-postgres}"
  POSTGRES_DB="${POSTGRES_DB:-$POSTGRES_USER}"
  export POSTGRES_USER POSTGRES_DB
  printf '%s\n' "$POSTGRES_PASSWORD" > /tmp/pwfile
  initdb --username="$POSTGRES_USER" --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256 -D "$PGDATA" >/dev/null
  rm -f /tmp/pwfile
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [ "$POSTGRES_DB" != postgres ]; then
    createdb --username="$POSTGRES_USER" "$POSTGRES_DB"
  fi
  for script in /docker-entrypoint-initdb.d/*; do
    case "$script" in
      *.sh) if [ -x "$script" ]; then "$script"; else . "$script"; fi ;;
      *.sql) psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -f "$script" ;;
      *) ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec "$@" -D "$PGDATA" -c listen_addresses='*'
