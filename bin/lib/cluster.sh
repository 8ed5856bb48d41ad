# shellcheck shell=bash
# The cluster's processes, for ./nsc (sourced by it): which components there are, their ports and
# URLs, the identity ./nsc calls them with, their pid files and health, and how they are started.

# --- Components -----------------------------------------------------------------------------

components() {
    metadata_components
    local i
    for ((i = 1; i <= STORAGE_NODES; i++)); do echo "storage-$i"; done
    echo trino
    local workers
    workers=$(trino_workers)
    for ((i = 1; i <= workers; i++)); do echo "trino-worker-$i"; done
}

# Without a pipe into grep -q, which may stop reading before components() has written everything
# (a broken pipe that pipefail turns into "unknown component").
is_component() { [[ $'\n'$(components)$'\n' == *$'\n'"$1"$'\n'* ]]; }

# --- Ports and URLs -------------------------------------------------------------------------

grpc_port() {
    case $1 in
        metadata) echo "$NSC_PORT_BASE" ;;
        metadata-*) echo $((NSC_PORT_BASE + 2 * (${1#metadata-} - 1))) ;;
        postgresql) postgresql_port ;;
        storage-*) echo $((NSC_PORT_BASE + 10 * ${1#storage-})) ;;
        trino) trino_port ;;
        trino-worker-*) trino_node_http_port "$1" ;;
    esac
}

http_port() {
    case $1 in
        trino) trino_port ;;
        trino-worker-*) trino_node_http_port "$1" ;;
        *) echo $(($(grpc_port "$1") + 1)) ;;
    esac
}

health_url() {
    local scheme=https
    [[ $NSC_INSECURE == 1 ]] && scheme=http
    case $1 in
        trino | trino-worker-*) echo "http://127.0.0.1:$(trino_node_http_port "$1")/v1/info" ;;
        *) echo "$scheme://127.0.0.1:$(http_port "$1")/v1/health" ;;
    esac
}

metrics_url() {
    local scheme=https
    [[ $NSC_INSECURE == 1 ]] && scheme=http
    echo "$scheme://127.0.0.1:$(http_port "$1")/v1/metrics"
}

# --- ./nsc's identity -----------------------------------------------------------------------

# The identity ./nsc itself uses (health checks, load, info): a client certificate of the cluster CA.
cli_certificate() {
    [[ $NSC_INSECURE == 1 ]] && return 0
    [[ -f $TLS_DIR/nsc-cli.pem && -f $TLS_DIR/nsc-cli.key ]] || tool certs --dir "$TLS_DIR" client:nsc-cli >/dev/null
}

# Options of nsc-tools for ./nsc's client identity.
tool_tls_args() {
    if [[ $NSC_INSECURE == 1 ]]; then
        echo --insecure
    else
        echo --certificate "$TLS_DIR/nsc-cli.pem" --key "$TLS_DIR/nsc-cli.key" --ca "$TLS_DIR/ca.pem"
    fi
}

curl_tls_args() {
    [[ $NSC_INSECURE == 1 ]] && return 0
    echo --cacert "$TLS_DIR/ca.pem" --cert "$TLS_DIR/nsc-cli.pem" --key "$TLS_DIR/nsc-cli.key"
}

# --- Processes and health -------------------------------------------------------------------

pid_of() { { [[ -f $STATE/$1.pid ]] && cat "$STATE/$1.pid"; } || true; }

is_running() {
    local pid
    pid=$(pid_of "$1")
    [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null && ! is_zombie "$pid"
}

# A killed process stays a zombie until its parent reaps it, and kill -0 still finds it: it runs
# no more (and where PID 1 is slow to reap, ./nsc start right after a SIGKILL must not take it for
# a running service). The state is the field after the command name, which may hold spaces.
is_zombie() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    [[ ${stat##*) } == Z* ]]
}

is_healthy() {
    local body
    [[ $1 != postgresql ]] || { postgresql ready "$(postgresql_port)"; return; }
    # shellcheck disable=SC2046 # the TLS options are words
    body=$(curl -fsS --max-time 2 $(is_trino_node "$1" || curl_tls_args) "$(health_url "$1")" 2>/dev/null) || return 1
    ! is_trino_node "$1" || [[ $body == *'"starting":false'* ]]
}

wait_healthy() { # component timeout-seconds
    local deadline=$((SECONDS + $2))
    until is_healthy "$1"; do
        is_running "$1" || die "$1 exited during start-up; see $CLUSTER/$1/log/"
        ((SECONDS < deadline)) || die "$1 did not become healthy within $2 s; see $CLUSTER/$1/log/"
        sleep 1
    done
}

metric() { # component name: one counter from the component's /v1/metrics, or "?"
    local value
    # shellcheck disable=SC2046 # the TLS options are words
    value=$(curl -fsS --max-time 2 $(curl_tls_args) "$(metrics_url "$1")" 2>/dev/null | awk -v name="$2" '$1 == name { print $2 }')
    echo "${value:-?}"
}

# --- Starting -------------------------------------------------------------------------------

start_background() { # component log-file command...
    local component=$1 logfile=$2
    shift 2
    mkdir -p "$(dirname "$logfile")" "$STATE"
    nohup "$@" >"$logfile" 2>&1 </dev/null &
    echo $! >"$STATE/$component.pid"
}

# Each component runs through bin/nsc-node, the same launch code the Docker images use; only
# the settings (ports, addresses, directories) come from here.
start_component() {
    local component=$1 dir=$CLUSTER/$1
    if [[ $component == postgresql ]]; then
        start_postgresql
        return
    fi
    local env=(NSC_HOME="$NSC_HOME" NSC_BIND_HOST=127.0.0.1 NSC_ADVERTISED_HOST=127.0.0.1
        NSC_METADATA_ADDRESS="$(metadata_addresses)" NSC_TLS_DIR="$TLS_DIR" NSC_INSECURE="$NSC_INSECURE"
        # a demo shows repair within a minute of a node's loss, and scrubs its small data often
        NSC_REPLICA_LOSS_TIMEOUT="${NSC_REPLICA_LOSS_TIMEOUT:-1m}" NSC_REPLICATION_CHECK_INTERVAL="${NSC_REPLICATION_CHECK_INTERVAL:-5s}"
        NSC_SCRUB_INTERVAL="${NSC_SCRUB_INTERVAL:-1h}")
    case $component in
        metadata) env+=(NSC_GRPC_PORT="$(grpc_port metadata)" NSC_HTTP_PORT="$(http_port metadata)") ;;
        # each over the one PostgreSQL, with its own data directory (audit log, grant secret) and certificate
        metadata-*)
            env+=(NSC_GRPC_PORT="$(grpc_port "$component")" NSC_HTTP_PORT="$(http_port "$component")" NSC_METADATA_NAME="$component"
                NSC_CATALOG=postgresql NSC_POSTGRESQL_URL="$(postgresql_url)" NSC_POSTGRESQL_USER=nsc NSC_POSTGRESQL_PASSWORD_FILE="$POSTGRESQL_PASSWORD_FILE")
            ;;
        storage-*) env+=(NSC_NODE_ID="$component" NSC_GRPC_PORT="$(grpc_port "$component")" NSC_HTTP_PORT="$(http_port "$component")") ;;
        trino)
            env+=(NSC_TRINO_SERVER="$(trino_server_dir)" NSC_HTTP_PORT="$(trino_http_port)" NSC_TRINO_ROLE=coordinator NSC_TRINO_HEAP="$(trino_heap trino)")
            trino_secure && env+=(NSC_TRINO_SECURE=1 NSC_TRINO_HTTPS_PORT="$(trino_port)")
            # --access-control: the roles nsc ships, or the operator's own rules
            trino_access_control && env+=(NSC_TRINO_ACCESS_CONTROL="${NSC_TRINO_ACCESS_CONTROL:-$NSC_HOME/etc/trino/access-control.json}")
            # with workers the coordinator runs no splits, as in a production cluster: the splits'
            # work is the workers', the coordinator keeps its CPU for planning, scheduling and the
            # dynamic filters it collects, and its heap can be small
            (($(trino_workers) == 0)) || env+=(NSC_TRINO_INCLUDE_COORDINATOR=false NSC_TRINO_QUERY_MAX_MEMORY="$(workers_query_memory)")
            ;;
        trino-worker-*)
            env+=(NSC_TRINO_SERVER="$(trino_server_dir)" NSC_HTTP_PORT="$(trino_node_http_port "$component")" NSC_TRINO_ROLE=worker
                NSC_TRINO_NODE_ID="$component" NSC_TRINO_DISCOVERY_URI="http://127.0.0.1:$(trino_http_port)" NSC_TRINO_HEAP="$(trino_heap "$component")")
            # internal communication then needs the cluster's shared secret
            trino_secure && env+=(NSC_TRINO_SECURE=1)
            ;;
    esac
    start_background "$component" "$dir/log/launcher.log" env "${env[@]}" "$NSC_HOME/bin/nsc-node" run "${component%%-*}" "$dir"
}

# Starts components (in the order of components()) and returns once each is healthy and the
# coordinator schedules on every running worker.
start_components() { # component...
    local component
    for component in "$@"; do
        log "starting $component"
        start_component "$component"
        # the storage nodes register with the metadata services as they start
        if is_metadata_service "$component"; then
            wait_healthy "$component" 60
        fi
    done
    for component in "$@"; do
        if is_trino_node "$component"; then wait_healthy "$component" 180; else wait_healthy "$component" 60; fi
    done
    wait_storage_nodes_live 60
    wait_workers_active 60
}

# A metadata service that (re)starts knows the storage nodes from its catalog, and counts a node
# live on the beat the catalog last recorded until that is older than metadata.node-timeout; it
# places files only on nodes it counts live. A write right after ./nsc start or ./nsc demo must
# find every running node: each has had its last call answered (metadata_reachable), and every
# metadata service counts them all.
wait_storage_nodes_live() { # timeout-seconds
    local deadline=$((SECONDS + $1)) component running=() service live
    for component in $(components | grep '^storage-'); do
        is_running "$component" && running+=("$component")
    done
    ((${#running[@]})) || return 0
    # with no metadata service running the nodes serve reads and register once one starts
    running_metadata_service >/dev/null || return 0
    for component in "${running[@]}"; do
        until [[ $(metric "$component" metadata_reachable) == 1 ]]; do
            ((SECONDS < deadline)) || die "$component has not reached the metadata service within $1 s; see $CLUSTER/$component/log/"
            sleep 1
        done
    done
    for service in $(metadata_components); do
        { is_metadata_service "$service" && is_running "$service"; } || continue
        while true; do
            live=$(metric "$service" live_nodes)
            # a node stopped a moment ago may still count until the service times it out
            [[ $live =~ ^[0-9]+$ ]] && ((live >= ${#running[@]})) && break
            ((SECONDS < deadline)) || die "$service counts $live of ${#running[@]} running storage nodes live after $1 s; see $CLUSTER/$service/log/"
            sleep 1
        done
    done
}
