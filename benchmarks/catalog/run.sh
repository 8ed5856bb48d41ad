#!/usr/bin/env bash
# The two catalog backends side by side: BenchmarkCatalogBackends (nsc-metadata's test sources)
# on a fresh H2 catalog in DIR and on a fresh PostgreSQL server it starts itself (initdb + pg_ctl
# from Debian's postgresql package, fsync on, under /tmp). Prints commits per second (one file
# per commit, 1 thread and 4 threads) and GetTableFiles latency for a table of 10,000 files
# (median and p99 of whole listings). No cluster needed.
#
#   benchmarks/catalog/run.sh [--dir DIR] [--commits N] [--listings N]
#
# DIR defaults to var/bench-catalog in the repository; use the disk the metadata service runs on.
set -euo pipefail

exec "$(dirname "${BASH_SOURCE[0]}")/../catalog-commits/run.sh" --benchmark BenchmarkCatalogBackends "$@"
