#!/usr/bin/env bash
# BI metadata at scale (issue 28): what BI tools ask on every connect, over JDBC against a real
# Trino with the nsc catalog. Starts a cluster of its own (./nsc demo at TPC-H scale 0.01, with
# its own NSC_VAR and ports, so a developer's demo is untouched), creates a schema nsc.bi of
# --tables tables of --columns columns (a few with rows and comments; kept for the next run),
# times information_schema.columns/.tables, SHOW TABLES, system.metadata.table_comments,
# DatabaseMetaData.getTables/getColumns
# (BenchmarkBiMetadata, product-tests' test sources), prints the metadata service's listing
# counters, and stops the cluster.
#
#   flock /tmp/nsc-maven.lock benchmarks/bi-metadata/run.sh [--tables N] [--columns C] [--runs R] [--warmups W] > benchmarks/bi-metadata/results/NAME.txt
#
# Builds the modules with `package` (never `install`) first; the lock keeps other builds off
# the cores while the cluster runs. NSC_VAR (default var/bench-bi), NSC_PORT_BASE (7570) and
# NSC_BI_TRINO_PORT (8580) move it.
set -euo pipefail
HOME_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export NSC_VAR=${NSC_VAR:-$HOME_DIR/var/bench-bi}
export NSC_PORT_BASE=${NSC_PORT_BASE:-7570}
trino_port=${NSC_BI_TRINO_PORT:-8580}
load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
# the benchmark's JVM is java from the PATH: the JDK 25 of JAVA_HOME first
[[ -z ${JAVA_HOME:-} ]] || export PATH=$JAVA_HOME/bin:$PATH

(cd "$HOME_DIR" && ./mvnw -B -q -o package -DskipTests -Dnsc.skipFuzz=true) >&2
trap '"$HOME_DIR/nsc" stop >&2' EXIT
NSC_SKIP_BUILD=1 "$HOME_DIR/nsc" demo --scale 0.01 --trino-port "$trino_port" >&2

echo "# cluster: ./nsc demo --scale 0.01 (H2 catalog, 3 storage nodes, Trino coordinator only), NSC_VAR=$NSC_VAR; load average before the build and start: $load_at_start"
NSC_BENCHMARK_MODULE=product-tests "$HOME_DIR/benchmarks/java-benchmark.sh" io.nsc.tests.BenchmarkBiMetadata 1g \
    "benchmarks/bi-metadata/run.sh${*:+ $*}" "--tables 1000 --columns 20 --runs 7 --warmups 5" \
    --url "jdbc:trino://127.0.0.1:$trino_port/nsc" "$@"
tls=$NSC_VAR/cluster/tls
echo "# the metadata service's lookup counters after setup and runs: $(curl -fsS --cacert "$tls/ca.pem" --cert "$tls/nsc-cli.pem" --key "$tls/nsc-cli.key" \
    "https://127.0.0.1:$((NSC_PORT_BASE + 1))/v1/metrics" | grep -E '^table_(lookups|definition)' | paste -sd' ')"
