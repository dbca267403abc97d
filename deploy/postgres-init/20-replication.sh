#!/bin/sh
# Run once by the postgres image when it creates the primary's cluster: the role the standby
# streams the WAL as, and the line of pg_hba.conf that lets it (the image's own lines admit
# every database but not replication).
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<SQL
CREATE ROLE replicator WITH REPLICATION LOGIN PASSWORD '${REPLICATION_PASSWORD:?set REPLICATION_PASSWORD}';
-- From the next start on (this one runs before any standby exists, and would wait for it):
-- a commit returns only once the standby has its WAL.
ALTER SYSTEM SET synchronous_standby_names = 'FIRST 1 (dozor_standby)';
SQL
echo "host replication replicator all scram-sha-256" >> "$PGDATA/pg_hba.conf"
