# shellcheck shell=bash
# ./nsc demo, status, stop and start: the local cluster's life (sourced by ./nsc).

# --- ./nsc demo -----------------------------------------------------------------------------

# ./nsc demo --workers N: at most this many Trino workers beside the coordinator.
MAX_TRINO_WORKERS=8

cmd_demo() {
    local scale=1 port=8080 secure=0 access_control=0 workers='' catalog=''
    while (($#)); do
        case $1 in
            --catalog) catalog=${2:?--catalog needs a value}; shift 2 ;;
            --scale) scale=${2:?--scale needs a value}; shift 2 ;;
            --trino-port) port=${2:?--trino-port needs a value}; shift 2 ;;
            --secure) secure=1; shift ;;
            --access-control) access_control=1; shift ;;
            --workers) workers=${2:?--workers needs a value}; shift 2 ;;
            *) die "unknown demo option: $1 (try --scale S, --trino-port P, --secure, --access-control, --workers N, --catalog h2|postgresql)" ;;
        esac
    done
    choose_catalog "$catalog"
    [[ $secure == 0 || $NSC_INSECURE != 1 ]] || die "--secure needs the cluster CA: unset NSC_INSECURE"
    [[ $scale =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--scale must be a positive number, got '$scale'"
    [[ $port =~ ^[0-9]+$ ]] || die "--trino-port must be a port number, got '$port'"
    # without --workers, a cluster keeps the workers it has (a new one has none)
    if [[ -n $workers ]]; then
        { [[ $workers =~ ^[0-9]{1,9}$ ]] && ((10#$workers <= MAX_TRINO_WORKERS)); } ||
            die "--workers must be a whole number from 0 to $MAX_TRINO_WORKERS (Trino workers beside the coordinator), got '$workers'"
        workers=$((10#$workers))
        if [[ $workers != "$(trino_workers)" ]]; then
            any_trino_node_running && die "Trino runs with $(trino_workers) workers; stop the cluster first to change that"
            mkdir -p "$STATE" && echo "$workers" >"$STATE/trino.workers"
        fi
    fi

    local down=()
    local component
    for component in $(components); do
        is_running "$component" || down+=("$component")
    done
    if ((${#down[@]} == 0)); then
        log "the nsc cluster is already running; nothing changed"
        print_connect_info
        return 0
    fi
    if any_trino_node_running && [[ $(trino_port) != "$port" ]]; then
        die "Trino already runs on port $(trino_port); stop the cluster first to change the port"
    fi
    if any_trino_node_running && [[ $(cat "$STATE/trino.secure" 2>/dev/null || echo 0) != "$secure" ]]; then
        die "Trino already runs $(trino_secure && echo with || echo without) --secure; stop the cluster first to change that"
    fi
    if any_trino_node_running && [[ $(cat "$STATE/trino.access-control" 2>/dev/null || echo 0) != "$access_control" ]]; then
        die "Trino already runs $(trino_access_control && echo with || echo without) --access-control; stop the cluster first to change that"
    fi

    local demo_started started
    demo_started=$(now_us)
    mkdir -p "$STATE"
    : >"$STEP_LOG"
    setup_java
    # the machine's part of the setup: the server binaries (Debian's package) when missing
    if is_postgresql_catalog; then
        postgresql install
    fi
    # NSC_SKIP_BUILD=1: use what an enclosing build has just produced (the product tests do)
    if [[ ${NSC_SKIP_BUILD:-} != 1 ]]; then
        started=$(now_us)
        build
        step_done build "$started"
    fi
    started=$(now_us)
    install_trino_server
    step_done "Trino server download/unpack" "$started"
    # the cluster CA and ./nsc's own certificate, before any component needs them
    cli_certificate
    any_trino_node_running || { echo "$port" >"$STATE/trino.port" && echo "$secure" >"$STATE/trino.secure" && echo "$access_control" >"$STATE/trino.access-control"; }

    started=$(now_us)
    start_components "${down[@]}"
    step_done "start of the services (until healthy)" "$started"

    load_tpch "$scale"
    started=$(now_us)
    sql "SELECT count(*) FROM nsc.tpch.region" >/dev/null || die "Trino does not answer queries; see $CLUSTER/trino/log/"
    step_done "first query answered" "$started"
    step_done total "$demo_started"
    print_demo_summary
    print_connect_info
}

# Records the catalog of a new cluster (h2 without --catalog); an existing cluster keeps its own.
choose_catalog() { # catalog-or-empty
    local catalog=$1
    [[ -z $catalog || $catalog == h2 || $catalog == postgresql ]] || die "--catalog must be h2 or postgresql, got '$catalog'"
    if [[ -f $STATE/trino.port ]]; then
        # its tables are in the catalog it has; the storage nodes would delete their files as
        # unclaimed under a new, empty one
        [[ -z $catalog || $catalog == "$(catalog)" ]] ||
            die "this cluster keeps its catalog in $(catalog), not $catalog: use another NSC_VAR for a new cluster, or remove $CLUSTER"
    else
        mkdir -p "$STATE"
        echo "${catalog:-h2}" >"$STATE/catalog"
    fi
    is_postgresql_catalog || return 0
    # the port is the cluster's from its first start on; NSC_POSTGRESQL_PORT moves a stopped server
    if [[ ! -f $STATE/postgresql.port || (-n ${NSC_POSTGRESQL_PORT:-} && $NSC_POSTGRESQL_PORT != "$(postgresql_port)") ]]; then
        [[ ${NSC_POSTGRESQL_PORT:-7432} =~ ^[0-9]+$ ]] || die "NSC_POSTGRESQL_PORT must be a port number, got '$NSC_POSTGRESQL_PORT'"
        is_running postgresql && die "PostgreSQL already runs on port $(postgresql_port); stop the cluster first to change that"
        echo "${NSC_POSTGRESQL_PORT:-7432}" >"$STATE/postgresql.port"
    fi
}

load_tpch() {
    # shellcheck disable=SC2097,SC2098 # NSC_HOME, not exported, passed on to bin/nsc-node
    NSC_HOME=$NSC_HOME NSC_METADATA_ADDRESS="$(metadata_addresses)" NSC_TLS_DIR="$TLS_DIR" NSC_INSECURE="$NSC_INSECURE" \
        NSC_STEP_LOG="$STEP_LOG" "$NSC_HOME/bin/nsc-node" load-tpch "$1" "$NSC_VAR"
}

print_connect_info() {
    if trino_secure; then
        cat <<EOF

nsc is running, Trino with HTTPS and passwords (on 127.0.0.1 only).
  JDBC URL:   jdbc:trino://localhost:$(trino_port)/nsc?SSL=true&SSLTrustStorePath=$TLS_DIR/ca.pem
  User:       nsc      Password: in $TLS_DIR/trino-password
  Trino CLI:  ./nsc cli
  One query:  ./nsc sql "SELECT count(*) FROM nsc.tpch.lineitem"
  Status:     ./nsc status        Stop: ./nsc stop
EOF
        print_workers
        return
    fi
    cat <<EOF

nsc is running.
  JDBC URL:   jdbc:trino://localhost:$(trino_port)/nsc   (user: any name, no password; Trino listens on 127.0.0.1 only)
  Trino CLI:  ./nsc cli
  One query:  ./nsc sql "SELECT count(*) FROM nsc.tpch.lineitem"
  Status:     ./nsc status        Stop: ./nsc stop
EOF
    print_workers
}

print_workers() {
    local workers
    workers=$(trino_workers)
    ((workers == 0)) || echo "  Workers:    $workers Trino workers (trino-worker-1..$workers) run the splits; the coordinator runs none"
}

# --- Steps and memory -----------------------------------------------------------------------

# Wall-clock microseconds (bash's EPOCHREALTIME, whatever the locale's decimal mark).
now_us() { echo "${EPOCHREALTIME/[.,]/}"; }

# ./nsc demo's steps, one "name<TAB>seconds<TAB>note" line each; bin/nsc-node adds its own
# (generation, each table's load) through NSC_STEP_LOG.
STEP_LOG=$STATE/demo-steps

step_done() { # name start-us [note]
    local us seconds
    us=$(($(now_us) - $2))
    seconds=$(printf '%d.%d' $((us / 1000000)) $((us / 100000 % 10)))
    log "$1 took $seconds s"
    printf '%s\t%s\t%s\n' "$1" "$seconds" "${3:-}" >>"$STEP_LOG"
}

# Resident memory of a process now and at its peak, "RSS PEAK" in MB, from VmRSS and VmHWM of
# /proc/<pid>/status (Linux only: "? ?" elsewhere).
memory_of() { # pid
    awk '/^VmRSS:/ { rss = $2 } /^VmHWM:/ { peak = $2 }
        END { if (rss == "" || peak == "") print "? ?"; else printf "%.0fMB %.0fMB\n", rss * 1.024 / 1000, peak * 1.024 / 1000 }' \
        "/proc/$1/status" 2>/dev/null || echo "? ?"
}

print_demo_summary() {
    local name seconds note component rss peak
    echo
    echo "Steps (wall-clock):"
    while IFS=$'\t' read -r name seconds note; do
        printf '  %-38s %7s s%s\n' "$name" "$seconds" "${note:+  $note}"
    done <"$STEP_LOG"
    echo "Memory of the services, resident now and at peak (VmRSS, VmHWM):"
    for component in $(components); do
        is_running "$component" || continue
        read -r rss peak <<<"$(memory_of "$(pid_of "$component")")"
        printf '  %-14s %9s now %9s peak\n' "$component" "$rss" "$peak"
    done
}

# --- ./nsc status ---------------------------------------------------------------------------

cmd_status() {
    local component pid health rss peak any=1
    printf '%-14s %-8s %-6s %9s %9s %s\n' COMPONENT PID PORT RSS PEAK-RSS HEALTH
    for component in $(components); do
        pid=$(pid_of "$component")
        rss=- peak=-
        if is_running "$component"; then
            any=0
            if is_healthy "$component"; then health=healthy; else health=unhealthy; fi
            read -r rss peak <<<"$(memory_of "$pid")"
        else
            health=stopped
            pid=-
        fi
        printf '%-14s %-8s %-6s %9s %9s %s\n' "$component" "${pid:--}" "$(grpc_port "$component")" "$rss" "$peak" "$health"
    done
    ((any == 0)) && print_durability
    return $any
}

print_durability() {
    local component metadata
    echo
    metadata=$(running_metadata_service) && printf 'replication: %s files, %s under-replicated, %s unavailable; copies: %s in flight, %s done (%s bytes), %s failed; %s replicas trimmed, %s damaged reported, %s draining nodes\n' \
        "$(metric "$metadata" committed_files)" "$(metric "$metadata" under_replicated_files)" "$(metric "$metadata" unavailable_files)" \
        "$(metric "$metadata" copies_in_flight)" "$(metric "$metadata" copies_completed)" "$(metric "$metadata" bytes_copied)" "$(metric "$metadata" copies_failed)" \
        "$(metric "$metadata" replicas_trimmed)" "$(metric "$metadata" damaged_replicas_reported)" "$(metric "$metadata" draining_nodes)"
    for component in $(components | grep '^storage-'); do
        is_running "$component" || continue
        printf '%s: %s files; scrub: %s passes, %s/%s files this pass, %s files (%s bytes) checked, %s damaged; %s copies quarantined, %s copies made\n' "$component" \
            "$(metric "$component" file_count)" "$(metric "$component" scrub_passes_completed)" "$(metric "$component" scrub_current_pass_done)" \
            "$(metric "$component" scrub_current_pass_files)" "$(metric "$component" scrub_files_scrubbed)" "$(metric "$component" scrub_bytes_scrubbed)" \
            "$(metric "$component" scrub_damaged_found)" "$(metric "$component" files_quarantined)" "$(metric "$component" copies_completed)"
    done
}

# --- ./nsc stop and start -------------------------------------------------------------------

cmd_stop() { # [component...]: all of them by default, Trino first
    local component pid stopped=0 selected=()
    for component in "$@"; do
        is_component "$component" || die "unknown component '$component' (one of: $(components | tr '\n' ' '))"
    done
    # the coordinator first (no new queries), then its workers, then the services the other way
    # round: the storage nodes, the metadata services, PostgreSQL last
    if (($#)); then selected=("$@"); else mapfile -t selected < <(components | grep '^trino'; components | grep -v '^trino' | tac); fi
    for component in "${selected[@]}"; do
        is_running "$component" || { rm -f "$STATE/$component.pid"; continue; }
        if [[ $component == postgresql ]]; then
            # a clean shutdown, not a signal: the next start needs no recovery
            postgresql stop "$POSTGRESQL_DIR"
            rm -f "$STATE/$component.pid"
            log "stopped $component"
            stopped=1
            continue
        fi
        pid=$(pid_of "$component")
        kill "$pid" 2>/dev/null || true
        local deadline=$((SECONDS + 30))
        while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.5; done
        kill -9 "$pid" 2>/dev/null || true
        rm -f "$STATE/$component.pid"
        log "stopped $component"
        stopped=1
    done
    ((stopped)) || log "nothing was running"
}

# What ./nsc demo does after components died, without building or loading: for restarts.
cmd_start() { # [component...]: all of them by default
    [[ -f $STATE/trino.port ]] || die "there is no cluster to start yet: ./nsc demo creates one"
    local component down=()
    for component in "$@"; do
        is_component "$component" || die "unknown component '$component' (one of: $(components | tr '\n' ' '))"
    done
    # in the order of components(): the metadata service first, Trino last
    for component in $(components); do
        if (($#)) && ! printf '%s\n' "$@" | grep -qx -- "$component"; then continue; fi
        is_running "$component" || down+=("$component")
    done
    if ((${#down[@]} == 0)); then
        log "already running; nothing changed"
        return 0
    fi
    setup_java
    cli_certificate
    start_components "${down[@]}"
    log "started ${down[*]}"
}
