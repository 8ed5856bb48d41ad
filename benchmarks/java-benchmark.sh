#!/usr/bin/env bash
# Runs one of a module's benchmark classes (its test sources; trino-nsc unless NSC_BENCHMARK_MODULE
# names another) in one JVM, after building the module if the class is missing, and prints a
# results header first: what ran, when, at which commit, on what CPUs and how loaded (the load
# average again at the end: a figure taken on a busy machine shows it). The benchmarks' run.sh
# scripts call it. NSC_BENCHMARK_JVM_OPTS adds JVM options (a profiler agent, say).
#
#   benchmarks/java-benchmark.sh <class> <heap> <how it was called> <defaults> [benchmark args...]
set -euo pipefail

class=$1 heap=$2 called=$3 defaults=$4
shift 4
HOME_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
module_name=${NSC_BENCHMARK_MODULE:-trino-nsc}
module=$HOME_DIR/$module_name
repo=${NSC_MAVEN_REPO:+-Dmaven.repo.local=$NSC_MAVEN_REPO}
if [[ ! -f $module/target/test-classes/${class//.//}.class ]]; then
    echo "building $module_name (tests compiled, not run) ..." >&2
    # package, not install: the shared local repository must not get this tree's snapshots
    (cd "$HOME_DIR" && ${NSC_BUILD_LOCK:+flock "$NSC_BUILD_LOCK"} ./mvnw -B -q -o $repo package -pl "$module_name" -am -DskipTests -Dnsc.skipFuzz=true)
fi
classpath=$module/target/benchmark-classpath.txt
(cd "$HOME_DIR" && ./mvnw -B -q -o $repo dependency:build-classpath -pl "$module_name" -Dmdep.includeScope=test -Dmdep.outputFile="$classpath")
# The sibling modules resolve to whatever snapshot jars the local repository holds (another
# tree's build, or none): measure this tree's classes instead.
own_classes=$(sed -E "s#[^:]*/io/nsc/([a-z-]+)/[^/:]+/[^/:]+-tests\.jar#$HOME_DIR/\1/target/test-classes#g; s#[^:]*/io/nsc/([a-z-]+)/[^/:]+/[^/:]+\.jar#$HOME_DIR/\1/target/classes#g" "$classpath")
commit=$(git -C "$HOME_DIR" rev-parse --short=12 HEAD)
git -C "$HOME_DIR" diff --quiet HEAD 2>/dev/null || commit="$commit with uncommitted changes"
load_average() { cut -d' ' -f1-3 /proc/loadavg; }
echo "# $called (defaults: $defaults)"
echo "# $(date -u +%Y-%m-%dT%H:%MZ), commit $commit, $(nproc) cores, $(java -version 2>&1 | head -1)"
echo "# CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | sort | uniq -c | sed 's/^ *//; s/ / x /'); CPU set: $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)"
echo "# load average at start (1, 5, 15 min): $(load_average)"
# shellcheck disable=SC2086 # NSC_BENCHMARK_JVM_OPTS is a list of options
java "-Xmx$heap" -Djdk.attach.allowAttachSelf=true -XX:+EnableDynamicAgentLoading ${NSC_BENCHMARK_JVM_OPTS:-} \
    -cp "$module/target/classes:$module/target/test-classes:$own_classes" "$class" "$@"
echo "# load average at end (1, 5, 15 min): $(load_average)"
