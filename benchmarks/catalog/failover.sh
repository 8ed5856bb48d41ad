#!/usr/bin/env bash
# The time from killing a metadata service (SIGKILL) to the first successful query through Trino,
# on the process cluster with its catalog in PostgreSQL and two metadata services:
# ./nsc demo --catalog postgresql at a small scale, then per round: SELECT count(*) answers, the
# metadata service the clients use is killed, the same query is sent again and again until one
# succeeds, and the victim is started again. The victim is the service whose table_lookups metric
# rose with the query before the kill: clients stay on the service they failed over to, so rounds
# alternate between metadata-1 and metadata-2.
#
#   benchmarks/catalog/failover.sh [--scale S] [--rounds N] [--keep]     [0.1] [5]
#
# --keep leaves the cluster running. The cluster has its own NSC_VAR [var/bench-failover] and
# ports (NSC_PORT_BASE [17070], NSC_POSTGRESQL_PORT [17432], Trino 18080), so a running demo is
# left alone. Prints each round and appends them, with the machine and the command, to
# benchmarks/catalog/results/failover.txt.
set -euo pipefail

cd "$(dirname "$0")/../.."
scale=0.1 rounds=5 keep=0
command_line="benchmarks/catalog/failover.sh $*"
while (($#)); do
    case $1 in
        --scale) scale=${2:?--scale needs a value}; shift 2 ;;
        --rounds) rounds=${2:?--rounds needs a value}; shift 2 ;;
        --keep) keep=1; shift ;;
        *) echo "unknown option: $1 (--scale S, --rounds N, --keep)" >&2; exit 2 ;;
    esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "--rounds must be a positive whole number, got '$rounds'" >&2; exit 2; }

export NSC_VAR=${NSC_VAR:-$PWD/var/bench-failover} NSC_PORT_BASE=${NSC_PORT_BASE:-17070} NSC_POSTGRESQL_PORT=${NSC_POSTGRESQL_PORT:-17432}
trino_port=18080
results=benchmarks/catalog/results
mkdir -p "$results"

./nsc demo --catalog postgresql --scale "$scale" --trino-port "$trino_port"
((keep)) || trap './nsc stop >/dev/null 2>&1' EXIT

output=$(mktemp)
victim_file=$(mktemp)
for ((round = 1; round <= rounds; round++)); do
    python3 - "http://127.0.0.1:$trino_port" "$round" "$NSC_PORT_BASE" "$victim_file" <<'PY' | tee -a "$output"
import os, signal, sys, time
sys.path.insert(0, "benchmarks")
from nsc_metrics import service_metrics
from trino_client import run_query

server, round_number, port_base, victim_file = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
services = ["metadata-1", "metadata-2"]

def table_lookups(service):
    # metadata-N serves HTTP on NSC_PORT_BASE + 2(N-1) + 1
    port = port_base + 2 * (int(service.split("-")[1]) - 1) + 1
    return service_metrics(os.environ["NSC_VAR"], port)["table_lookups"]

def gone(pid):
    # a SIGKILLed process is a zombie until it is reaped: ./nsc start must not find it running
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().rsplit(") ", 1)[1].startswith("Z")
    except FileNotFoundError:
        return True

query = "SELECT count(*) FROM nsc.tpch.lineitem"
lookups = {service: table_lookups(service) for service in services}
started = time.monotonic()
_, expected, _ = run_query(server, "bench", query)
before = time.monotonic() - started
# the victim is the service Trino planned that query with: killing an idle one times nothing
used = [service for service in services if table_lookups(service) > lookups[service]]
if len(used) != 1:
    sys.exit(f"cannot tell which metadata service Trino uses: table_lookups rose on {used or 'none'}")
victim = used[0]
with open(os.path.join(os.environ["NSC_VAR"], "cluster", "state", victim + ".pid")) as file:
    pid = int(file.read())
killed = time.monotonic()
os.kill(pid, signal.SIGKILL)
failures = 0
while True:
    try:
        _, rows, _ = run_query(server, "bench", query)
        break
    except Exception as error:
        failures += 1
        last_error = str(error)
        if time.monotonic() - killed > 300:
            sys.exit(f"no query succeeded within 300 s of the kill; the last error: {last_error}")
        time.sleep(0.05)
seconds = time.monotonic() - killed
if rows != expected:
    sys.exit(f"after the kill the query answered {rows}, before it {expected}")
print(f"round {round_number}: first successful query {seconds:.3f} s after SIGKILL of {victim} ({failures} failed before it; the same query took {before:.3f} s before the kill)")
while not gone(pid):
    time.sleep(0.05)
with open(victim_file, "w") as file:
    file.write(victim)
PY
    ./nsc start "$(cat "$victim_file")" >/dev/null
done
rm -f "$victim_file"

median=$(sed -n 's/.*query \([0-9.]*\) s after.*/\1/p' "$output" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
{
    echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) $command_line (scale $scale, $rounds rounds)"
    echo "machine: $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), $(free -g | awk '/^Mem:/ { print $2 }') GiB memory, $(uname -sr); PostgreSQL $("$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -1)/postgres" --version | awk '{ print $3 }')"
    echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with local changes)')"
    cat "$output"
    echo "median: $median s"
} | tee -a "$results/failover.txt" | tail -1
rm -f "$output"
