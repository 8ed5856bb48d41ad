#!/usr/bin/env bash
# What the table benchmarks/pruning-at-scale/run.sh prunes costs the metadata service: the heap
# its catalog holds once the table is committed, the catalog database's bytes on disk per column
# chunk, and the time to list the whole table page by page (a coordinator's cold GetTableFiles).
# BenchmarkCatalogMemory (nsc-metadata's test sources) on a fresh H2 catalog under DIR (default
# the system's temporary directory), as the service runs it; no cluster needed.
#
#   benchmarks/pruning-at-scale/metadata-service.sh [--dir DIR] [--files N] [--row-groups R] [--columns C] [--listings K] > results/NAME.txt
set -euo pipefail
export NSC_BENCHMARK_MODULE=nsc-metadata
exec "$(dirname "${BASH_SOURCE[0]}")/../java-benchmark.sh" io.nsc.metadata.catalog.BenchmarkCatalogMemory 4g "benchmarks/pruning-at-scale/metadata-service.sh${*:+ $*}" "--files 10000 --row-groups 100 --columns 10 --listings 3" "$@"
