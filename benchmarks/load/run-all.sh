#!/usr/bin/env bash
# The load runs of benchmarks/load/results/: 32 and 64 heavy queries at once over nsc and over
# Hive on the same files, with default session properties and with pushdown forced, one after
# another against the running demo (see benchmarks/load/README.md for its Hive catalog).
#
#   benchmarks/load/run-all.sh OUT-DIR
set -euo pipefail
out=${1:?usage: benchmarks/load/run-all.sh OUT-DIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$out"
status=0
run() { # name run.py-options...
    local name=$1
    shift
    echo "== $name" >&2
    python3 "$here/run.py" --deadline 1800 --out "$out/$name" "$@" >/dev/null || status=1
    sed -n '/^Trino server survived/,/^peaks/p' "$out/$name.txt" >&2
}
for clients in 32 64; do
    run "nsc-groupby-$clients" --catalog nsc --workload groupby --clients "$clients"
    run "hive-groupby-$clients" --catalog hive --workload groupby --clients "$clients"
done
run nsc-groupby-32-pushdown --catalog nsc --workload groupby --clients 32 \
    --session "nsc.pushdown=filter,nsc.aggregation_pushdown_max_groups=100000000"
run nsc-like-64-filter --catalog nsc --workload like --clients 64 --session "nsc.pushdown=filter"
exit $status
