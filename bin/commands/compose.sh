# shellcheck shell=bash
# ./nsc compose: the Docker Compose cluster (sourced by ./nsc).

# The Compose cluster is driven by docker/compose; this provides what it takes from the local
# build: the modules (unless NSC_SKIP_BUILD=1), the Trino server and the CLI.
cmd_compose() {
    setup_java
    if [[ ${1:-} == up || ${1:-} == build ]] && [[ " $* " != *" --no-build "* && ${NSC_SKIP_BUILD:-} != 1 ]]; then
        build
    fi
    install_trino_server
    install_trino_cli
    NSC_VAR=$NSC_VAR NSC_TRINO_SERVER_DIR=$(trino_server_dir) NSC_TRINO_CLI_JAR=$(trino_cli_jar) \
        exec "$NSC_HOME/docker/compose" "$@"
}
