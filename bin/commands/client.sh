# shellcheck shell=bash
# ./nsc cli, sql, load, info and drain: clients of the running cluster (sourced by ./nsc).

cmd_cli() {
    setup_java
    install_trino_cli
    local args
    args=$(trino_cli_args)
    trino_secure && TRINO_PASSWORD=$(cat "$TLS_DIR/trino-password") && export TRINO_PASSWORD
    # shellcheck disable=SC2086 # the CLI options are words
    exec java "${JVM_FLAGS[@]}" -jar "$(trino_cli_jar)" $args --catalog nsc "$@"
}

cmd_sql() {
    (($# >= 1)) || die 'usage: ./nsc sql "<query>"'
    is_running trino || die "the cluster is not running; start it with ./nsc demo"
    setup_java
    sql "$1" --output-format ALIGNED
}

cmd_load() {
    (($# >= 2)) || die "usage: ./nsc load <schema>.<table> <file-or-dir>..."
    running_metadata_service >/dev/null || die "the cluster is not running; start it with ./nsc demo"
    setup_java
    [[ -f $NSC_HOME/nsc-tools/target/nsc-tools-$VERSION.jar ]] || build
    cli_certificate
    # shellcheck disable=SC2046 # the TLS options are words
    tool load --metadata "$(metadata_addresses)" $(tool_tls_args) "$@"
}

cmd_info() {
    (($# == 1)) || die "usage: ./nsc info <schema>.<table>"
    running_metadata_service >/dev/null || die "the cluster is not running; start it with ./nsc demo"
    setup_java
    cli_certificate
    # shellcheck disable=SC2046 # the TLS options are words
    tool info --metadata "$(metadata_addresses)" $(tool_tls_args) "$1"
}

cmd_drain() {
    (($# >= 1)) || die "usage: ./nsc drain <node> [--cancel | --no-wait] [--timeout 30m]"
    running_metadata_service >/dev/null || die "the cluster is not running; start it with ./nsc demo"
    setup_java
    cli_certificate
    # shellcheck disable=SC2046 # the TLS options are words
    tool drain --metadata "$(metadata_addresses)" $(tool_tls_args) "$@"
}
