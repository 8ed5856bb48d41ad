#!/usr/bin/env bash
# Where a storage node's scan spends its CPU: one scan of benchmarks/scan-rate (default the 1%
# filter on an unsorted lineitem column with a sum) run many rounds under async-profiler, which
# samples native code too (the ZSTD decompressor runs outside Java, where JFR's sampler does not
# look), then a summary by component. async-profiler comes from Maven Central
# (tools.profiler:async-profiler), cached under $NSC_CACHE.
#
#   benchmarks/scan-rate/profile.sh --lineitem FILE [--only "lineitem 1% unsorted, sum"] [--rounds 30] > results/NAME-profile.txt
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=benchmarks/async-profiler.sh
source "$here/../async-profiler.sh"
library=$(async_profiler_library)
args=("$@")
[[ " $* " == *" --only "* ]] || args+=(--only "lineitem 1% unsorted, sum")
[[ " $* " == *" --rounds "* ]] || args+=(--rounds 30)
[[ " $* " == *" --wide-rows "* ]] || args+=(--wide-rows 1000)
# the storage scan alone: the column for Trino's own path would add its decompression to the native samples
[[ " $* " == *" --trino "* ]] || args+=(--trino false)
# NSC_PROFILE_COLLAPSED keeps the stacks (collapsed form) in that file, for a closer look
collapsed=${NSC_PROFILE_COLLAPSED:-$(mktemp)}
[[ -n ${NSC_PROFILE_COLLAPSED:-} ]] || trap 'rm -f "$collapsed"' EXIT
# itimer: CPU time of every thread, without perf events (often not permitted in containers)
NSC_BENCHMARK_MODULE=nsc-storage NSC_BENCHMARK_JVM_OPTS="-agentpath:$library=start,event=itimer,interval=5ms,file=$collapsed,collapsed" \
    "$here/../java-benchmark.sh" io.nsc.storage.scan.BenchmarkStorageScan 4g "benchmarks/scan-rate/profile.sh${*:+ $*}" "--only 'lineitem 1% unsorted, sum' --rounds 30 --wide-rows 1000" "${args[@]}"
echo
python3 "$here/profile_summary.py" "$collapsed"
