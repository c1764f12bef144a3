#!/bin/sh
# Run once by the postgres image on its first start (an empty volume), as the superuser
# POSTGRES_USER: makes Countersign's two roles (docs/operations.md, "The two database roles").
# countersign_owner owns the database and runs the migrations (compose's `migrate` service);
# countersign_app is what the dashboard, worker and cli connect as: it owns nothing, and migration
# 0024 lets it only read and insert into the audit tables. An install made before this script
# existed gets the same from `cli db:roles` (docs/operations.md, "Upgrading to the two roles").
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v database="$POSTGRES_DB" \
  -v owner_password="$COUNTERSIGN_OWNER_PASSWORD" \
  -v app_password="$COUNTERSIGN_APP_PASSWORD" <<'SQL'
CREATE ROLE countersign_owner LOGIN PASSWORD :'owner_password';
CREATE ROLE countersign_app LOGIN PASSWORD :'app_password';
ALTER DATABASE :"database" OWNER TO countersign_owner;
ALTER SCHEMA public OWNER TO countersign_owner;
REVOKE ALL ON DATABASE :"database" FROM PUBLIC;
GRANT CONNECT ON DATABASE :"database" TO countersign_app;
SQL
