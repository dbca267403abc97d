#!/bin/sh
# The standby's first start copies the primary (pg_basebackup, WAL streamed alongside, -R for
# standby.signal and primary_conninfo); later starts resume streaming from where it stopped.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    until pg_isready -h "$PRIMARY_HOST" -U replicator -q; do sleep 1; done
    export PGPASSWORD="$REPLICATION_PASSWORD"
    # Through a replication slot of its name: the primary keeps the WAL this standby has not
    # received (up to max_slot_wal_keep_size), so a standby that was down catches up instead of
    # finding its next segment removed. A slot left by an earlier copy is used again.
    pg_basebackup -h "$PRIMARY_HOST" -U replicator -D "$PGDATA" -X stream -c fast -R \
        --no-password --create-slot --slot="$STANDBY_NAME" ||
        { rm -rf "${PGDATA:?}"/*; pg_basebackup -h "$PRIMARY_HOST" -U replicator -D "$PGDATA" \
            -X stream -c fast -R --no-password --slot="$STANDBY_NAME"; }
    unset PGPASSWORD
    # Named as the primary's synchronous_standby_names waits for it.
    echo "primary_conninfo = 'host=$PRIMARY_HOST user=replicator password=$REPLICATION_PASSWORD application_name=$STANDBY_NAME'" \
        >> "$PGDATA/postgresql.auto.conf"
    chmod 0700 "$PGDATA"
fi
exec docker-entrypoint.sh postgres -c config_file="$PGDATA/postgresql.conf" "$@"
