#!/usr/bin/env bash
# Split generation for a synthetic table of many files (default 20,000 files of 16 columns, one
# row group each, with column sketches): the whole table in one GetTableFiles message planned at
# once, against pages planned a batch at a time by the split source. BenchmarkSplitGeneration
# (trino-nsc's test sources) against an in-process metadata service; no cluster needed.
#
#   benchmarks/split-generation/run.sh [--files N] [--columns C] [--batch B] [--rounds R] > results/NAME.txt
#
# The baseline (the whole table in one message) needs at most 100,000 files: the most one
# GetTableFiles answer may hold. The paged run keeps the coordinator's table-files cache off.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/../java-benchmark.sh" io.nsc.trino.split.BenchmarkSplitGeneration 4g "benchmarks/split-generation/run.sh${*:+ $*}" "--files 20000 --columns 16 --batch 1000 --rounds 5" "$@"
