#!/usr/bin/env bash
# Coordinator-side pruning of a synthetic table of many column chunks (default 10,000 files of
# 100 row groups and 10 columns: 10 million chunks) once their compact stats are in memory: the
# time to classify every row group for a selective predicate on a sorted column, a point lookup on
# an unsorted one and no predicate, and the bytes held per column chunk.
# BenchmarkPruningAtScale (trino-nsc's test sources), in one JVM; no cluster needed.
#
#   benchmarks/pruning-at-scale/run.sh [--files N] [--row-groups R] [--columns C] [--rounds K] > results/NAME.txt
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/../java-benchmark.sh" io.nsc.trino.split.BenchmarkPruningAtScale 8g "benchmarks/pruning-at-scale/run.sh${*:+ $*}" "--files 10000 --row-groups 100 --columns 10 --rounds 5" "$@"
