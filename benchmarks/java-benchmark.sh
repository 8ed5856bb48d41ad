#!/usr/bin/env bash
# Runs one of a module's benchmark classes (its test sources; trino-nsc unless NSC_BENCHMARK_MODULE
# names another) in one JVM, after building the module if the class is missing, and prints a
# results header first: what ran, when, on what. The benchmarks' run.sh scripts call it.
# NSC_BENCHMARK_JVM_OPTS adds JVM options (a profiler agent, say).
#
#   benchmarks/java-benchmark.sh <class> <heap> <how it was called> <defaults> [benchmark args...]
set -euo pipefail

class=$1 heap=$2 called=$3 defaults=$4
# before Maven's own JVM below adds to it
load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
shift 4
HOME_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
module_name=${NSC_BENCHMARK_MODULE:-trino-nsc}
module=$HOME_DIR/$module_name
repo=()
[[ -z ${NSC_MAVEN_REPO:-} ]] || repo=(-Dmaven.repo.local="$NSC_MAVEN_REPO")
if [[ ! -f $module/target/test-classes/${class//.//}.class ]]; then
    echo "building $module_name (tests compiled, not run) ..." >&2
    (cd "$HOME_DIR" && ${NSC_BUILD_LOCK:+flock "$NSC_BUILD_LOCK"} ./mvnw -B -q -o "${repo[@]}" package -pl "$module_name" -am -DskipTests -Dnsc.skipFuzz=true)
fi
classpath=$module/target/benchmark-classpath.txt
(cd "$HOME_DIR" && ./mvnw -B -q -o "${repo[@]}" dependency:build-classpath -pl "$module_name" -Dmdep.includeScope=test -Dmdep.outputFile="$classpath")
# the nsc modules it depends on come from this checkout's target directories, never from the jars
# some other checkout installed in the local Maven repository
tr ':' '\n' < "$classpath" \
    | sed -E "s#^.*/io/nsc/([^/]+)/[^/]+/[^/]+-tests\.jar\$#$HOME_DIR/\1/target/test-classes#; s#^.*/io/nsc/([^/]+)/[^/]+/[^/]+\.jar\$#$HOME_DIR/\1/target/classes#" \
    | paste -sd: > "$classpath.local"
mv "$classpath.local" "$classpath"
echo "# $called (defaults: $defaults)"
commit=$(git -C "$HOME_DIR" rev-parse --short=12 HEAD)
git -C "$HOME_DIR" diff --quiet HEAD -- || commit="$commit with uncommitted changes"
echo "# $(date -u +%Y-%m-%dT%H:%MZ), commit $commit, $(java -version 2>&1 | head -1)"
echo "# CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; CPU set (Cpus_allowed_list): $(awk '/Cpus_allowed_list/ {print $2}' /proc/self/status)"
echo "# load average at start: $load_at_start"
# shellcheck disable=SC2086 # NSC_BENCHMARK_JVM_OPTS is a list of options
java "-Xmx$heap" -Djdk.attach.allowAttachSelf=true -XX:+EnableDynamicAgentLoading ${NSC_BENCHMARK_JVM_OPTS:-} \
    -cp "$module/target/classes:$module/target/test-classes:$(cat "$classpath")" "$class" "$@"
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
