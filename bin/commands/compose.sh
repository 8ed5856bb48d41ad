# shellcheck shell=bash
# ./nsc compose: the Docker Compose cluster (sourced by ./nsc).

# The Compose cluster is driven by docker/compose; this provides what it takes from the local
# build: the modules (unless NSC_SKIP_BUILD=1), the Trino server and the CLI.
cmd_compose() {
    if [[ ${1:-} == up || ${1:-} == build ]]; then
        compose_prerequisites
    fi
    setup_java
    if [[ ${1:-} == up || ${1:-} == build ]] && [[ " $* " != *" --no-build "* && ${NSC_SKIP_BUILD:-} != 1 ]]; then
        build
    fi
    install_trino_server
    install_trino_cli
    NSC_VAR=$NSC_VAR NSC_TRINO_SERVER_DIR=$(trino_server_dir) NSC_TRINO_CLI_JAR=$(trino_cli_jar) \
        exec "$NSC_HOME/docker/compose" "$@"
}

# A Docker engine that answers and Compose, before anything is built or downloaded; as root, what
# is missing is set up as CI does it (docker/start-engine.sh: Debian's packages, dockerd).
compose_prerequisites() {
    if docker_with_compose; then
        return 0
    fi
    [[ $(id -u) == 0 ]] || die "compose needs a Docker engine with Compose, and none answers: as root, docker/start-engine.sh sets one up (Debian's docker.io and docker-compose)"
    log "no Docker engine with Compose answers: setting one up with docker/start-engine.sh"
    "$NSC_HOME/docker/start-engine.sh" >&2 || die "docker/start-engine.sh could not make a Docker engine usable (see above)"
}

# Whether a Docker engine answers and a Compose (v2 plugin or Debian's v1) can drive it.
docker_with_compose() {
    docker info >/dev/null 2>&1 && { docker compose version || command -v docker-compose; } >/dev/null 2>&1
}
