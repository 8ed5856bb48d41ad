#!/usr/bin/env bash
# The deployment of docs/operating/several-machines.md, run for real: every component in a network
# namespace of its own, with its own address on a bridge and its own host name, as separate
# machines would be, started with `bin/nsc-node run` and given only its own certificate bundle.
#
#   product-tests/several-hosts/run.sh            (as root; ./nsc test runs it)
#
# The hosts (namespace nsch-<host>, address 10.231.0.x on the bridge nschosts0, which lives in a
# namespace of its own, nsch-switch, so that nothing of the machine's own network or firewall is
# touched):
#
#   postgresql   pg.nsc.test           10.231.0.10  PostgreSQL 5432, TLS only (hostssl, SCRAM)
#   metadata-1   meta1.nsc.test        10.231.0.11  metadata gRPC 7070, HTTPS 7071
#   metadata-2   meta2.nsc.test        10.231.0.12  metadata gRPC 7070, HTTPS 7071
#   storage-N    nodeN.nsc.test        10.231.0.2N  storage gRPC 7080, HTTPS 7081 (N = 1..3)
#   coordinator  coordinator.nsc.test  10.231.0.30  Trino coordinator, HTTP 8080
#   client       client.nsc.test       10.231.0.40  the loader and the SQL client
#
# The operator's machine (a directory here, never a host of the cluster) keeps the cluster CA and
# issues one bundle per host with `nsc-node tool certs --out`; each host gets a copy of its own
# bundle and nothing else. Then: PostgreSQL starts with its server certificate, the two metadata
# services reach it with sslmode=verify-full, three storage nodes register under their names, the
# client loads TPC-H sf0.01 and checks SQL through the coordinator against Trino's tpch.tiny
# (counts, checksums, four TPC-H queries), a CTAS and an INSERT, kills metadata-1 with SIGKILL and
# checks reads and writes through metadata-2. Along the way it asserts that no host holds ca.key,
# that each service presents its own certificate under its host name, that PostgreSQL refuses a
# connection without TLS and serves the catalog to the metadata hosts over TLS only, that a
# service's port is not reachable on 127.0.0.1 from another host, and that the metadata services'
# audit logs name each caller (loader, Trino, each storage node) by its own certificate. It exits
# non-zero with a message naming the failed check.
#
# The hosts share the machine's file system: the built modules (NSC_HOME) and the Trino server
# install are read by all of them, as a shared software install would be; each host's
# configuration, data, logs and bundle are in its own directory under the run's directory.
#
# Environment:
#   NSC_HOSTS_KEEP=1   keep the run's directory (logs, configuration) after a passing run; a failing
#                      run always keeps it and prints where
#   NSC_CACHE          where the Trino server is installed (downloaded when missing) [~/.cache/nsc]
#
# Exit status: 0 passed, 1 failed, 0 with "SKIPPED: <reason>" when not root or without network
# namespaces.
set -euo pipefail

NSC_HOME=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$NSC_HOME/product-tests/several-hosts
NSC_CACHE=${NSC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nsc}
NSC_MAVEN_REPO=${NSC_MAVEN_REPO:-https://repo.maven.apache.org/maven2}
TRINO_VERSION=476
VERSION=0.1-SNAPSHOT

PREFIX=nsch
SWITCH=$PREFIX-switch
BRIDGE=nschosts0
SUBNET=10.231.0
DOMAIN=nsc.test
SCALE=0.01
# tpch's schema of the same rows as nsc-tools' TPC-H at $SCALE
REFERENCE_SCHEMA=tiny

# host -> address, name
declare -A ADDRESS=([postgresql]=$SUBNET.10 [metadata-1]=$SUBNET.11 [metadata-2]=$SUBNET.12
    [storage-1]=$SUBNET.21 [storage-2]=$SUBNET.22 [storage-3]=$SUBNET.23 [coordinator]=$SUBNET.30 [client]=$SUBNET.40)
declare -A NAME=([postgresql]=pg.$DOMAIN [metadata-1]=meta1.$DOMAIN [metadata-2]=meta2.$DOMAIN
    [storage-1]=node1.$DOMAIN [storage-2]=node2.$DOMAIN [storage-3]=node3.$DOMAIN [coordinator]=coordinator.$DOMAIN [client]=client.$DOMAIN)
# the certificate each host's bundle holds (kind:name:hosts for nsc certs)
declare -A CERTIFICATE=([postgresql]=server:postgresql [metadata-1]=metadata:metadata-1 [metadata-2]=metadata:metadata-2
    [storage-1]=storage:storage-1 [storage-2]=storage:storage-2 [storage-3]=storage:storage-3 [coordinator]=client:trino [client]=client:loader)
HOSTS=(postgresql metadata-1 metadata-2 storage-1 storage-2 storage-3 coordinator client)
METADATA_ADDRESS=${NAME[metadata-1]}:7070,${NAME[metadata-2]}:7070

# each line with the seconds since the start
log() { printf 'several-hosts: [%3d s] %s\n' "$SECONDS" "$*" >&2; }
die() { echo "several-hosts: FAILED: $*" >&2; exit 1; }
skip() { echo "several-hosts: SKIPPED: $*" >&2; exit 0; }

# --- Preconditions --------------------------------------------------------------------------

preflight() {
    (($(id -u) == 0)) || skip "needs root (network namespaces, veth links and a bridge); run it as root, as CI does"
    command -v ip >/dev/null || skip "no ip command (iproute2)"
    local probe=$PREFIX-probe-$$
    ip netns add "$probe" 2>/dev/null || skip "network namespaces are not available here (ip netns add failed)"
    ip netns delete "$probe"
    # one run at a time on a machine: the namespaces, the bridge and the addresses are fixed
    exec 8>/tmp/nsc-several-hosts-run.lock
    flock -n 8 || { log "another several-hosts run is under way; waiting for it"; flock 8; }
    # an earlier run killed before its cleanup
    if ip netns list | grep "^$PREFIX-" >/dev/null; then
        log "removing the namespaces of an earlier run: $(ip netns list | grep "^$PREFIX-" | cut -d' ' -f1 | tr '\n' ' ')"
        cleanup_network
    fi
    local module
    for module in nsc-metadata nsc-storage nsc-tools; do
        [[ -f $NSC_HOME/$module/target/$module-$VERSION.jar ]] || die "$module is not built: ./nsc build (or ./mvnw install -DskipTests) first"
    done
    [[ -d $NSC_HOME/trino-nsc/target/trino-nsc-$VERSION ]] || die "trino-nsc is not built: ./nsc build first"
    command -v python3 >/dev/null || die "python3 is needed (the checks and the SQL client)"
}

# Java, PostgreSQL's binaries and the Trino server, as ./nsc gets them.
setup_software() {
    # shellcheck source=bin/lib/java.sh
    source "$NSC_HOME/bin/lib/java.sh"
    # shellcheck source=bin/lib/downloads.sh
    source "$NSC_HOME/bin/lib/downloads.sh"
    setup_java
    "$NSC_HOME/bin/nsc-postgresql" install
    install_trino_server
}

# --- The network ----------------------------------------------------------------------------

in_host() { # host command...
    local host=$1
    shift
    ip netns exec "$PREFIX-$host" "$@"
}

# One namespace per host and a switch namespace holding the bridge; each host's eth0 is a veth
# whose other end is a port of the bridge. /etc/netns/<namespace>/hosts, which ip netns exec
# mounts over /etc/hosts, names every host.
setup_network() {
    local host port other
    ip netns add "$SWITCH"
    ip -n "$SWITCH" link add "$BRIDGE" type bridge
    ip -n "$SWITCH" link set "$BRIDGE" up
    for host in "${HOSTS[@]}"; do
        ip netns add "$PREFIX-$host"
        port=p-$host
        ip -n "$SWITCH" link add "$port" type veth peer name eth0 netns "$PREFIX-$host"
        ip -n "$SWITCH" link set "$port" master "$BRIDGE" up
        ip -n "$PREFIX-$host" link set lo up
        ip -n "$PREFIX-$host" addr add "${ADDRESS[$host]}/24" dev eth0
        ip -n "$PREFIX-$host" link set eth0 up
        mkdir -p "/etc/netns/$PREFIX-$host"
        {
            echo "127.0.0.1 localhost"
            for other in "${HOSTS[@]}"; do echo "${ADDRESS[$other]} ${NAME[$other]}"; done
        } >"/etc/netns/$PREFIX-$host/hosts"
    done
}

cleanup_network() {
    local namespace pid
    for namespace in $(ip netns list | cut -d' ' -f1 | grep "^$PREFIX-" || true); do
        # what this test started in its own namespaces, by process id
        for pid in $(ip netns pids "$namespace" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
        ip netns delete "$namespace" 2>/dev/null || true
        rm -rf "/etc/netns/${namespace:?}"
    done
}

# --- Processes ------------------------------------------------------------------------------

declare -A PIDS=()

# Starts a component in its host's namespace, in the background: host log command...
start_in_host() {
    local host=$1 logfile=$2
    shift 2
    ip netns exec "$PREFIX-$host" "$@" >"$logfile" 2>&1 </dev/null &
    PIDS[$host]=$!
}

stop_processes() {
    local host
    for host in "${!PIDS[@]}"; do kill "${PIDS[$host]}" 2>/dev/null || true; done
    [[ ! -d ${WORK:-}/hosts/postgresql/db/data ]] || "$NSC_HOME/bin/nsc-postgresql" stop "$WORK/hosts/postgresql/db" 2>/dev/null || true
    sleep 1
    for host in "${!PIDS[@]}"; do kill -9 "${PIDS[$host]}" 2>/dev/null || true; done
}

STATUS=failed
cleanup() {
    local code=$?
    stop_processes
    cleanup_network
    if [[ $STATUS == passed && ${NSC_HOSTS_KEEP:-0} != 1 ]]; then
        rm -rf "${WORK:?}"
    elif [[ -n ${WORK:-} ]]; then
        log "the run's directory (each host's etc/, log/ and bundle) is kept: $WORK"
    fi
    exit "$code"
}

# --- Waiting --------------------------------------------------------------------------------

# From the client host, with the loader's certificate: a service's /v1/health and /v1/metrics.
client_curl() { # url
    in_host client curl -fsS --max-time 3 --cacert "$WORK/hosts/client/tls/ca.pem" \
        --cert "$WORK/hosts/client/tls/loader.pem" --key "$WORK/hosts/client/tls/loader.key" "$1"
}

wait_for() { # description timeout-seconds host-that-must-run command...
    local description=$1 timeout=$2 host=$3 deadline
    shift 3
    deadline=$((SECONDS + timeout))
    until "$@" >/dev/null 2>&1; do
        if [[ -n $host ]] && ! kill -0 "${PIDS[$host]}" 2>/dev/null; then
            tail -20 "$WORK/hosts/$host/launcher.log" >&2 || true
            die "$host exited while waiting for $description; see $WORK/hosts/$host/"
        fi
        ((SECONDS < deadline)) || die "$description: not within $timeout s; see $WORK/hosts/${host:-client}/"
        sleep 1
    done
}

metric_at_least() { # url name value
    local value
    value=$(client_curl "$1" | awk -v name="$2" '$1 == name { print $2 }')
    [[ $value =~ ^[0-9]+$ ]] && ((value >= $3))
}

trino_ready() {
    in_host client curl -fsS --max-time 3 "http://${NAME[coordinator]}:8080/v1/info" | grep '"starting":false' >/dev/null
}

# --- The run --------------------------------------------------------------------------------

# The operator's machine: the CA and one bundle per host; each host gets a copy of its bundle only.
issue_bundles() {
    local operator=$WORK/operator host kind_name
    local requests=()
    for host in "${HOSTS[@]}"; do
        kind_name=${CERTIFICATE[$host]}
        # the loader is a client that serves nothing: no host name needed
        if [[ $host == client ]]; then requests+=("$kind_name"); else requests+=("$kind_name:${NAME[$host]}"); fi
    done
    log "issuing bundles on the operator's machine: nsc-node tool certs --dir operator/ca --out operator/bundles ${requests[*]}"
    "$NSC_HOME/bin/nsc-node" tool certs --dir "$operator/ca" --out "$operator/bundles" "${requests[@]}" >"$operator/certs.log" ||
        die "nsc certs failed; see $operator/certs.log"
    for host in "${HOSTS[@]}"; do
        kind_name=${CERTIFICATE[$host]}
        mkdir -p "$WORK/hosts/$host"
        cp -a "$operator/bundles/${kind_name#*:}" "$WORK/hosts/$host/tls"
    done
    # the catalog role's password: PostgreSQL's host sets it, the metadata services' hosts log in with it
    (umask 077 && head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' >"$operator/postgresql.password")
    for host in postgresql metadata-1 metadata-2; do
        cp -a "$operator/postgresql.password" "$WORK/hosts/$host/postgresql.password"
    done
}

start_postgresql() {
    local dir=$WORK/hosts/postgresql
    # the server runs as an unprivileged user, which must reach its directory
    chmod 711 "$WORK" "$WORK/hosts" "$dir"
    log "starting PostgreSQL on ${NAME[postgresql]}:5432 (${ADDRESS[postgresql]}), TLS only"
    in_host postgresql env NSC_POSTGRESQL_LISTEN="${ADDRESS[postgresql]}" NSC_POSTGRESQL_TLS_DIR="$dir/tls" \
        "$NSC_HOME/bin/nsc-postgresql" start "$dir/db" 5432 "$dir/postgresql.password" >"$dir/launcher.log" 2>&1 ||
        { cat "$dir/launcher.log" >&2; die "PostgreSQL did not start; see $dir/db/log/postgresql.log"; }
}

# host component env...
start_component() {
    local host=$1 component=$2 dir=$WORK/hosts/$1
    shift 2
    log "starting $component on ${NAME[$host]} (${ADDRESS[$host]}) with bundle hosts/$host/tls"
    start_in_host "$host" "$dir/launcher.log" env NSC_HOME="$NSC_HOME" NSC_BIND_HOST="${ADDRESS[$host]}" \
        NSC_ADVERTISED_HOST="${NAME[$host]}" NSC_TLS_DIR="$dir/tls" NSC_METADATA_ADDRESS="$METADATA_ADDRESS" \
        NSC_SERVICE_HEAP=512M "$@" "$NSC_HOME/bin/nsc-node" run "$component" "$dir/node"
}

start_metadata() { # host
    local dir=$WORK/hosts/$1
    start_component "$1" metadata NSC_METADATA_NAME="$1" NSC_CATALOG=postgresql \
        NSC_POSTGRESQL_URL="jdbc:postgresql://${NAME[postgresql]}:5432/nsc?ssl=true&sslmode=verify-full&sslrootcert=$dir/tls/ca.pem" \
        NSC_POSTGRESQL_USER=nsc NSC_POSTGRESQL_PASSWORD_FILE="$dir/postgresql.password"
}

# On PostgreSQL's host, as the server's administrator (its socket): the catalog's sessions come
# from the two metadata services' addresses, over TLS, and from nowhere else.
check_catalog_connections() {
    local bin sessions expected
    bin=$(dirname "$(printf '%s\n' /usr/lib/postgresql/*/bin/psql | sort -V | tail -1)")
    [[ -x $bin/psql ]] || bin=$(dirname "$(command -v psql)")
    sessions=$(cd "$WORK/hosts/postgresql/db" && in_host postgresql setpriv --reuid=nsc-pg --regid="$(id -g nsc-pg)" --init-groups -- \
        "$bin/psql" -X -A -t -F ' ' -h "$WORK/hosts/postgresql/db/run" -p 5432 -d nsc \
        -c "SELECT DISTINCT host(a.client_addr), s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) WHERE a.datname = 'nsc' AND a.client_addr IS NOT NULL ORDER BY 1") ||
        die "cannot list PostgreSQL's sessions"
    expected=$(printf '%s t\n%s t' "${ADDRESS[metadata-1]}" "${ADDRESS[metadata-2]}")
    [[ $sessions == "$expected" ]] || die "the catalog's sessions (address, TLS) are '$sessions', not the two metadata services' over TLS: '$expected'"
    log "ok: PostgreSQL's sessions on the catalog come from ${ADDRESS[metadata-1]} and ${ADDRESS[metadata-2]}, all over TLS"
}

# Each component's generated configuration names its own bundle, and no other host's.
check_configurations() {
    local host file
    for host in metadata-1 metadata-2 storage-1 storage-2 storage-3 coordinator; do
        file=$WORK/hosts/$host/node/etc/config.properties
        [[ $host != coordinator ]] || file=$WORK/hosts/$host/node/etc/catalog/nsc.properties
        grep -q "tls.ca-file=$WORK/hosts/$host/tls/ca.pem" "$file" || die "$host's configuration ($file) does not use its own bundle"
        ! grep -v "$WORK/hosts/$host/" "$file" | grep "$WORK/hosts/" >/dev/null || die "$host's configuration ($file) names another host's files"
    done
    log "ok: each component's configuration names its own bundle and no other host's files"
}

# The receiving side of "each component holds its own certificate": the metadata services' audit
# logs name each caller by its certificate, and the callers are the components that made the calls.
check_audit_logs() {
    local first=$WORK/hosts/metadata-1/node/data/audit.log second=$WORK/hosts/metadata-2/node/data/audit.log caller
    local host
    for caller in client:loader client:trino; do
        grep -qF "\"caller\":\"$caller\"" "$first" "$second" || die "no metadata service's audit log names $caller as a caller"
    done
    # each node registered itself, under its own certificate, at its host name
    for host in storage-1 storage-2 storage-3; do
        cat "$first" "$second" | grep -F "\"caller\":\"storage:$host\"" | grep -F '"method":"RegisterNode"' |
            grep -F "\"target\":\"$host at ${NAME[$host]}:7080\"" >/dev/null || die "no audit log shows $host registering as storage:$host at ${NAME[$host]}:7080"
    done
    # the writes after metadata-1's death went through metadata-2, as the coordinator's identity
    # (no grep -q after a pipe: an early exit would fail the pipe under pipefail)
    grep -F '"caller":"client:trino"' "$second" | grep -F after_failover >/dev/null || die "metadata-2's audit log has no change of after_failover by client:trino"
    log "ok: the audit logs name the loader, Trino and each storage node (registered at its host name) by their own certificates; the writes after the failover are metadata-2's"
}

check() { # python check.py arguments, in the client's host
    in_host client python3 "$HERE/check.py" "$@" || die "check '$1' failed (above)"
}

main() {
    preflight
    local started=$SECONDS
    setup_software
    WORK=$(mktemp -d /tmp/nsc-several-hosts.XXXXXX)
    trap cleanup EXIT
    trap 'exit 1' INT TERM
    mkdir -p "$WORK/operator" "$WORK/hosts"
    issue_bundles
    setup_network
    log "network: bridge $BRIDGE in namespace $SWITCH, hosts ${HOSTS[*]} on $SUBNET.0/24"

    # no host holds the CA's key, each holds exactly its own certificate
    local host name found
    found=$(find "$WORK/hosts" -name ca.key)
    [[ -z $found ]] || die "a host holds the CA's key: $found"
    for host in "${HOSTS[@]}"; do
        name=${CERTIFICATE[$host]#*:}
        [[ $(find "$WORK/hosts/$host/tls" -type f -printf '%f\n' | sort | tr '\n' ' ') == "ca.pem $name.key $name.pem " ]] ||
            die "hosts/$host/tls holds $(ls "$WORK/hosts/$host/tls"), not exactly ca.pem, $name.pem and $name.key"
    done
    log "ok: no host holds ca.key; each host's bundle is ca.pem and its own certificate and key"

    start_postgresql
    start_metadata metadata-1
    start_metadata metadata-2
    for host in metadata-1 metadata-2; do
        wait_for "$host healthy" 240 "$host" client_curl "https://${NAME[$host]}:7071/v1/health"
    done
    for host in storage-1 storage-2 storage-3; do
        start_component "$host" storage NSC_NODE_ID="$host"
    done
    start_component coordinator trino NSC_TRINO_SERVER="$(trino_server_dir)" NSC_TRINO_BIND_IP="${ADDRESS[coordinator]}" \
        NSC_TRINO_DISCOVERY_URI="http://${NAME[coordinator]}:8080" NSC_TRINO_HEAP=2G
    for host in storage-1 storage-2 storage-3; do
        wait_for "$host healthy" 240 "$host" client_curl "https://${NAME[$host]}:7081/v1/health"
        wait_for "$host reaching a metadata service" 120 "$host" metric_at_least "https://${NAME[$host]}:7081/v1/metrics" metadata_reachable 1
    done
    for host in metadata-1 metadata-2; do
        wait_for "$host counting 3 storage nodes live" 120 "$host" metric_at_least "https://${NAME[$host]}:7071/v1/metrics" live_nodes 3
    done

    # while Trino starts: the hosts are apart, and each service is who its certificate says
    local endpoints=()
    for host in metadata-1 metadata-2; do endpoints+=("$host=${NAME[$host]}:7070" "$host=${NAME[$host]}:7071"); done
    for host in storage-1 storage-2 storage-3; do endpoints+=("$host=${NAME[$host]}:7080" "$host=${NAME[$host]}:7081"); done
    check certificates "$WORK/hosts/client/tls" loader "postgresql=${NAME[postgresql]}:5432" "${endpoints[@]}"
    check plaintext-refused "${NAME[postgresql]}" 5432
    check_catalog_connections
    check_configurations

    wait_for "the Trino coordinator ready" 360 coordinator trino_ready
    log "the Trino coordinator is ready"
    # the ports of the other hosts, on the client's own loopback: nothing answers
    check unreachable 127.0.0.1 5432 7070 7071 7080 7081 8080
    # and from the coordinator's host: the services are on their hosts' addresses only
    in_host coordinator python3 "$HERE/check.py" unreachable 127.0.0.1 5432 7070 7071 7080 7081 ||
        die "check 'unreachable' from the coordinator's host failed (above)"

    log "loading TPC-H sf$SCALE from the client host (nsc-node load-tpch, bundle hosts/client/tls)"
    in_host client env NSC_HOME="$NSC_HOME" NSC_TLS_DIR="$WORK/hosts/client/tls" NSC_METADATA_ADDRESS="$METADATA_ADDRESS" \
        "$NSC_HOME/bin/nsc-node" load-tpch "$SCALE" "$WORK/hosts/client/loader" >"$WORK/hosts/client/load.log" 2>&1 ||
        { tail -20 "$WORK/hosts/client/load.log" >&2; die "load-tpch failed; see $WORK/hosts/client/load.log"; }
    log "loaded; checking SQL through the coordinator against tpch.$REFERENCE_SCHEMA"

    check sql "http://${NAME[coordinator]}:8080" "$REFERENCE_SCHEMA" before-failover

    log "killing metadata-1 (SIGKILL); the coordinator, the storage nodes and the loader also know metadata-2"
    kill -9 "${PIDS[metadata-1]}"
    wait "${PIDS[metadata-1]}" 2>/dev/null || true
    unset 'PIDS[metadata-1]'
    check sql "http://${NAME[coordinator]}:8080" "$REFERENCE_SCHEMA" after-failover
    check_audit_logs
    STATUS=passed
    log "PASSED in $((SECONDS - started)) s: 8 hosts in namespaces of their own, PostgreSQL over TLS, two metadata services, three storage nodes, one Trino coordinator"
}

main "$@"
