#!/usr/bin/env bash
# The storage node's scan rate: rows and Parquet MB it decodes, filters and aggregates per CPU
# second, for a TPC-H lineitem file (1% filter on an unsorted column with a sum, the same with
# rows sent, a full sum, Q1, Q6, Q8's and Q19's lineitem side, Q13's NOT LIKE on l_comment) and a
# generated wide table of 91 numeric columns (1% on an unsorted and on the sorted column, a sum
# of 10 columns). BenchmarkStorageScan (nsc-storage's
# test sources): one in-process storage node over gRPC, the CPU its scans report; no cluster needed.
#
#   bin/nsc-node tool tpch --scale 1 --tables lineitem --output /tmp/tpch   (or a demo's var/tpch/sf1)
#   benchmarks/scan-rate/run.sh --lineitem /tmp/tpch/lineitem/lineitem-000.parquet [--rounds 5] [--wide-rows 1000000] > results/NAME.txt
set -euo pipefail
export NSC_BENCHMARK_MODULE=nsc-storage
exec "$(dirname "${BASH_SOURCE[0]}")/../java-benchmark.sh" io.nsc.storage.scan.BenchmarkStorageScan 4g "benchmarks/scan-rate/run.sh${*:+ $*}" "--rounds 5 --wide-rows 1000000" "$@"
