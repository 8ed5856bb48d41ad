#!/usr/bin/env bash
# Compaction after many single-row INSERTs (issue 28): starts a cluster of its own (./nsc demo at
# TPC-H scale 0.01, with its own NSC_VAR and ports, so a developer's demo is untouched), runs
# run.py against it and stops it.
#
#   flock /tmp/nsc-maven.lock benchmarks/optimize/run.sh [--inserts N] [--repeat R] > benchmarks/optimize/results/NAME.txt
#
# Builds the modules with `package` (never `install`) first; the lock keeps other builds off
# the cores while the cluster runs. NSC_VAR (default var/bench-optimize), NSC_PORT_BASE (7670)
# and NSC_OPTIMIZE_TRINO_PORT (8680) move it.
set -euo pipefail
HOME_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export NSC_VAR=${NSC_VAR:-$HOME_DIR/var/bench-optimize}
export NSC_PORT_BASE=${NSC_PORT_BASE:-7670}
trino_port=${NSC_OPTIMIZE_TRINO_PORT:-8680}
load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
[[ -z ${JAVA_HOME:-} ]] || export PATH=$JAVA_HOME/bin:$PATH

(cd "$HOME_DIR" && ./mvnw -B -q -o package -DskipTests -Dnsc.skipFuzz=true) >&2
trap '"$HOME_DIR/nsc" stop >&2' EXIT
NSC_SKIP_BUILD=1 "$HOME_DIR/nsc" demo --scale 0.01 --trino-port "$trino_port" >&2

echo "# cluster: ./nsc demo --scale 0.01 (H2 catalog, 3 storage nodes, Trino coordinator only), NSC_VAR=$NSC_VAR; load average before the build and start: $load_at_start"
python3 "$HOME_DIR/benchmarks/optimize/run.py" --server "http://127.0.0.1:$trino_port" \
    --out "$HOME_DIR/benchmarks/optimize/results/1000-inserts.csv" "$@"
