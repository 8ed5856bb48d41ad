# shellcheck shell=bash
# The cluster's Trino, for ./nsc (sourced by it): the coordinator and its workers, their heaps,
# ports and URLs, and queries through the CLI or the REST API.

# --- Coordinator and workers ----------------------------------------------------------------

# ./nsc demo --workers N: N Trino workers beside the coordinator, trino-worker-1..N, each with its
# own directory under the cluster and its HTTP port at the coordinator's plain-HTTP port + i.
trino_workers() { cat "$STATE/trino.workers" 2>/dev/null || echo 0; }

is_trino_node() { [[ $1 == trino || $1 == trino-worker-* ]]; }

# Whether any Trino node runs, whatever the recorded number of workers.
any_trino_node_running() {
    local pid_file
    is_running trino && return 0
    for pid_file in "$STATE"/trino-worker-*.pid; do
        [[ -f $pid_file ]] || continue
        is_running "$(basename "$pid_file" .pid)" && return 0
    done
    return 1
}

# Heaps. One node runs every query on 4 GB. With workers the coordinator plans and schedules only
# (it runs no splits), so 2 GB do, and each worker gets 3 GB: a coordinator, two workers and the
# four nsc services (1 GB each) take 12 GB of heap at most, half of a 2-core, 24 GiB machine,
# which leaves a Maven build and the page cache the rest.
trino_heap() { # component
    case $1 in
        trino) if (($(trino_workers) > 0)); then echo "${NSC_TRINO_COORDINATOR_HEAP:-2G}"; else echo "${NSC_TRINO_HEAP:-4G}"; fi ;;
        trino-worker-*) echo "${NSC_TRINO_WORKER_HEAP:-3G}" ;;
    esac
}

# The most memory one query may take on all workers together: each worker's query.max-memory-per-node
# (30% of its heap, as bin/nsc-node sets it), times the workers.
workers_query_memory() {
    local heap megabytes per_worker
    heap=$(trino_heap trino-worker-1)
    [[ $heap =~ ^([0-9]+)([MG])$ ]] || die "NSC_TRINO_WORKER_HEAP must be a whole number of M or G (like 3G or 2560M), got '$heap'"
    megabytes=$((10#${BASH_REMATCH[1]}))
    [[ ${BASH_REMATCH[2]} == M ]] || megabytes=$((megabytes * 1024))
    per_worker=$((megabytes * 3 / 10))
    echo "$((per_worker * $(trino_workers)))MB"
}

# --- Ports and URLs -------------------------------------------------------------------------

trino_port() { cat "$STATE/trino.port" 2>/dev/null || echo 8080; }

# --secure: clients get HTTPS with passwords on the Trino port; plain HTTP (internal
# communication, health) moves to the port after it, on 127.0.0.1 like everything else.
trino_secure() { [[ $(cat "$STATE/trino.secure" 2>/dev/null || echo 0) == 1 ]]; }
# --access-control: Trino's file-based access control over etc/trino/access-control.json.
trino_access_control() { [[ $(cat "$STATE/trino.access-control" 2>/dev/null || echo 0) == 1 ]]; }

trino_http_port() {
    if trino_secure; then echo $(($(trino_port) + 1)); else trino_port; fi
}

trino_node_http_port() {
    case $1 in
        trino) trino_http_port ;;
        trino-worker-*) echo $(($(trino_http_port) + ${1#trino-worker-})) ;;
    esac
}

trino_url() {
    if trino_secure; then echo "https://localhost:$(trino_port)"; else echo "http://127.0.0.1:$(trino_port)"; fi
}

# The Trino CLI's options for the cluster's Trino (with --secure, --password reads TRINO_PASSWORD).
trino_cli_args() {
    if trino_secure; then
        echo --server "$(trino_url)" --truststore-path "$TLS_DIR/ca.pem" --user nsc --password
    else
        echo --server "$(trino_url)" --user "${USER:-nsc}"
    fi
}

# --- Queries --------------------------------------------------------------------------------

# For the Trino CLI: quiet the JVM's notices about agents, native access and Unsafe.
JVM_FLAGS=(-XX:+EnableDynamicAgentLoading -Djdk.attach.allowAttachSelf=true --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow)

sql() { # query [extra CLI args]
    local query=$1
    shift
    install_trino_cli
    local args
    args=$(trino_cli_args)
    trino_secure && TRINO_PASSWORD=$(cat "$TLS_DIR/trino-password") && export TRINO_PASSWORD
    # shellcheck disable=SC2086 # the CLI options are words
    java "${JVM_FLAGS[@]}" -Dorg.jline.terminal.dumb=true -jar "$(trino_cli_jar)" $args --catalog nsc \
        --execute "$query" "$@"
}

# One query through Trino's REST API, its rows tab-separated (the CLI's JVM would take seconds).
# The password goes through the environment, not the command line that ps shows to every user.
trino_query() { # sql
    local user=${USER:-nsc} password='' ca=''
    trino_secure && user=nsc && password=$(cat "$TLS_DIR/trino-password") && ca=$TLS_DIR/ca.pem
    NSC_TRINO_PASSWORD=$password python3 - "$(trino_url)" "$user" "$ca" "$1" <<'PY'
import base64, json, os, ssl, sys, urllib.request
url, user, ca, sql = sys.argv[1:5]
password = os.environ.get("NSC_TRINO_PASSWORD", "")
headers = {"X-Trino-User": user}
if password:
    headers["Authorization"] = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
context = ssl.create_default_context(cafile=ca) if ca else None
request = urllib.request.Request(url + "/v1/statement", data=sql.encode(), headers=headers)
while request is not None:
    with urllib.request.urlopen(request, context=context, timeout=10) as response:
        result = json.load(response)
    if "error" in result:
        sys.exit("nsc: " + result["error"]["message"])
    for row in result.get("data", []):
        print("\t".join(str(value) for value in row))
    request = urllib.request.Request(result["nextUri"], headers=headers) if "nextUri" in result else None
PY
}

# Waits until the coordinator schedules on every worker that runs: a worker is healthy before it
# has announced itself and the coordinator has refreshed its node list (every 5 s).
wait_workers_active() { # timeout-seconds
    local deadline=$((SECONDS + $1)) component running=() active missing
    is_running trino || return 0
    for component in $(components | grep '^trino-worker-'); do
        is_running "$component" && running+=("$component")
    done
    ((${#running[@]})) || return 0
    while true; do
        active=$(trino_query "SELECT node_id FROM system.runtime.nodes WHERE NOT coordinator AND state = 'active'" 2>/dev/null) || active=
        missing=$(printf '%s\n' "${running[@]}" | grep -vxF -f <(echo "$active") || true)
        [[ -n $missing ]] || return 0
        # shellcheck disable=SC2086,SC2116 # one word per worker
        ((SECONDS < deadline)) || die "the coordinator does not see $(echo $missing) as active within $1 s; see $CLUSTER/$(echo $missing | cut -d' ' -f1)/log/"
        sleep 1
    done
}
