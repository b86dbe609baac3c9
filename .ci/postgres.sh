#!/usr/bin/env bash
# Install (if missing) and start Debian's PostgreSQL on loopback, with a role the store tests use.
# Prints the URL for INSPECTOR_TEST_PG_URL on its last line.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ -z "$(ls /usr/lib/postgresql 2>/dev/null)" ]; then
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends postgresql >&2
fi
version=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
if ! pg_lsclusters -h | awk '{print $1, $2}' | grep -qx "$version main"; then
    pg_createcluster "$version" main >&2
fi
pg_ctlcluster "$version" main start >&2 || true   # already running is fine
for _ in $(seq 1 30); do
    su postgres -c "pg_isready -q -h 127.0.0.1" && break
    sleep 1
done
su postgres -c "psql -q -v ON_ERROR_STOP=1" >&2 <<'SQL'
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'inspector') THEN
    CREATE ROLE inspector LOGIN PASSWORD 'inspector' CREATEDB;
  END IF;
END $$;
-- A test drops its database WITH (FORCE); an autovacuum worker that just connected to it is the superuser's
-- backend, which only pg_signal_backend may end.
GRANT pg_signal_backend TO inspector;
SQL
echo "postgresql+psycopg://inspector:inspector@127.0.0.1:5432/postgres"
