#!/usr/bin/env bash
# Catalog commits per second, each commit forced to disk (what the metadata service does) and
# not forced (what it did before): BenchmarkCatalogCommits (nsc-metadata's test sources) on a
# fresh H2 catalog in DIR, i.e. on the disk that holds DIR. No cluster needed.
#
#   benchmarks/catalog-commits/run.sh [--dir DIR] [--commits N] [--rounds R]
#
# DIR defaults to var/bench-catalog in the repository; use the disk the metadata service runs on.
# benchmarks/catalog/run.sh runs another benchmark of the catalog through this script
# (--benchmark NAME: a class of io.nsc.metadata.catalog in the test sources).
set -euo pipefail

HOME_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VERSION=0.1-SNAPSHOT
dir=$HOME_DIR/var/bench-catalog
benchmark=BenchmarkCatalogCommits
args=()
while (($#)); do
    case $1 in
        --dir) dir=${2:?--dir needs a value}; shift 2 ;;
        --benchmark) benchmark=${2:?--benchmark needs a value}; shift 2 ;;
        --commits | --rounds | --listings) args+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
        *) echo "unknown option: $1" >&2; exit 2 ;;
    esac
done

module=$HOME_DIR/nsc-metadata
if [[ ! -f $module/target/test-classes/io/nsc/metadata/catalog/$benchmark.class || ! -f $module/target/nsc-metadata-$VERSION.jar ]]; then
    echo "building nsc-metadata (tests compiled, not run) ..." >&2
    (cd "$HOME_DIR" && ${NSC_BUILD_LOCK:+flock "$NSC_BUILD_LOCK"} ./mvnw -B -q install -pl nsc-metadata -am -DskipTests -Dnsc.skipFuzz=true)
fi
mkdir -p "$dir"
echo "machine: $(nproc) cores, $(free -g | awk '/^Mem:/ { print $2 }') GiB; $(uname -sr)"
echo "file system of $dir: $(df -PT "$dir" | awk 'NR == 2 { print $2 " on " $1 }')"
java -cp "$module/target/nsc-metadata-$VERSION.jar:$module/target/test-classes:$module/target/lib/*" \
    "io.nsc.metadata.catalog.$benchmark" --dir "$dir" "${args[@]}"
