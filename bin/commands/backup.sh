# shellcheck shell=bash
# ./nsc backup and restore: the catalog's backups (sourced by ./nsc).

cmd_backup() {
    (($# == 1)) || die "usage: ./nsc backup <file>"
    if is_postgresql_catalog; then
        is_running postgresql || die "PostgreSQL is not running; a backup is taken from the running server (start it with ./nsc start postgresql)"
        # pg_dump: one consistent snapshot of the catalog database, taken while the services commit
        postgresql dump "$(postgresql_port)" "$POSTGRESQL_PASSWORD_FILE" "$1"
        log "backed up the catalog database into $1 (pg_dump's custom format; ./nsc restore takes it)"
        return
    fi
    is_running metadata || die "the metadata service is not running; a backup is taken from the running service (start it with ./nsc demo)"
    setup_java
    [[ -f $NSC_HOME/nsc-tools/target/nsc-tools-$VERSION.jar ]] || build
    cli_certificate
    # shellcheck disable=SC2046 # the TLS options are words
    tool backup --metadata "$(metadata_addresses)" $(tool_tls_args) "$1"
}

# Never under a running service: stop it, restore, start it again.
cmd_restore() {
    (($# == 1 || $# == 2)) || die "usage: ./nsc restore <file> [--force]"
    [[ $# == 1 || $2 == --force ]] || die "unknown restore option: $2 (only --force)"
    [[ -f $1 ]] || die "$1 does not exist"
    if is_postgresql_catalog; then
        restore_postgresql "$@"
        return
    fi
    if is_running metadata; then
        die "the metadata service is running: stop it with ./nsc stop metadata, run ./nsc restore again, then ./nsc start metadata"
    fi
    setup_java
    [[ -f $NSC_HOME/nsc-metadata/target/nsc-metadata-$VERSION.jar ]] || build
    local backup
    backup=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
    # shellcheck disable=SC2097,SC2098 # NSC_HOME, not exported, passed on to bin/nsc-node
    NSC_HOME=$NSC_HOME "$NSC_HOME/bin/nsc-node" restore-catalog "$backup" "$CLUSTER/metadata" "${@:2}"
    log "start the metadata service again with ./nsc start metadata"
}

# pg_restore into the catalog database while no metadata service runs; the catalog it replaces is
# dumped aside first, as the h2 restore keeps the file it replaces.
restore_postgresql() { # file [--force]
    local component running=() aside
    (($# == 1)) || die "--force is the h2 catalog's (a backup of another cluster); a PostgreSQL restore replaces the catalog database whatever it held"
    for component in $(metadata_components); do
        is_metadata_service "$component" && is_running "$component" && running+=("$component")
    done
    ((${#running[@]} == 0)) || die "metadata services are running (${running[*]}): stop them with ./nsc stop ${running[*]}, run ./nsc restore again, then ./nsc start"
    # a file that is no dump is refused before anything is written or replaced
    postgresql check "$1"
    is_running postgresql || start_postgresql
    # to the nanosecond: two restores within a second must not collide over the copy aside
    aside=$POSTGRESQL_DIR/nsc.before-restore-$(date -u +%Y%m%dT%H%M%S.%NZ).dump
    postgresql dump "$(postgresql_port)" "$POSTGRESQL_PASSWORD_FILE" "$aside"
    postgresql restore "$(postgresql_port)" "$POSTGRESQL_PASSWORD_FILE" "$1"
    log "restored the catalog database from $1; the catalog it replaced is in $aside"
    log "start the metadata services again with ./nsc start"
}
