#!/usr/bin/env bash
# Where the JVMs of a running side-by-side benchmark spend their CPU: attaches async-profiler
# (itimer: every thread's CPU time, native code and the JIT's and GC's threads included, where
# JFR's sampler does not look) to Trino, the metadata service, the storage nodes and s3proxy for
# SECONDS, then writes one collapsed-stack file per process and summary.txt (samples, JIT and GC
# shares, hottest frames) into DIR. Run it as root while ./nsc bench runs, e.g. once its log
# says the warm-up is done. async-profiler comes from Maven Central
# (tools.profiler:async-profiler), cached under $NSC_CACHE.
#
#   benchmarks/side-by-side/profiling/profile-jvms.sh DIR [SECONDS]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
(($# >= 1)) || { echo "usage: $0 DIR [SECONDS]" >&2; exit 2; }
out=$1
seconds=${2:-30}
# shellcheck source=benchmarks/async-profiler.sh
source "$here/../../async-profiler.sh"
library=$(async_profiler_library)
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
mkdir -p "$out"

# the testbed's JVMs, named by the role their command line gives them
declare -A roles=()
for pid in $(pgrep java || true); do
    role=$(tr '\0' ' ' <"/proc/$pid/cmdline" | grep -o -E 'storage-[0-9]+|metadata|s3proxy|TrinoServer' | head -1 || true)
    [[ -n $role ]] && roles[$pid]=${role/TrinoServer/trino}
done
((${#roles[@]} > 0)) || { echo "no testbed JVM is running (start ./nsc bench first)" >&2; exit 1; }

for pid in "${!roles[@]}"; do
    "$java" "$here/AttachAgent.java" "$pid" "$library" "start,event=itimer,interval=2ms"
done
echo "profiling ${#roles[@]} JVMs for $seconds s: ${roles[*]}" >&2
sleep "$seconds"
for pid in "${!roles[@]}"; do
    "$java" "$here/AttachAgent.java" "$pid" "$library" "stop,file=$out/${roles[$pid]}-$pid.collapsed,collapsed" \
        || echo "${roles[$pid]} ($pid) ended before the profile did" >&2
done
python3 "$here/profile_summary.py" "$out"/*.collapsed | tee "$out/summary.txt"
