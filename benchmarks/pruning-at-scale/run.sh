#!/usr/bin/env bash
# Coordinator-side pruning of a synthetic table of many column chunks (default 10,000 files of
# 100 row groups and 10 columns: 10 million chunks) once their compact stats are in memory: the
# time to classify every row group for a selective predicate on a sorted column, a point lookup on
# an unsorted one and no predicate, and the bytes held per column chunk.
# BenchmarkPruningAtScale (trino-nsc's test sources), in one JVM; no cluster needed.
#
#   benchmarks/pruning-at-scale/run.sh [--files N] [--row-groups R] [--columns C] [--rounds K] > results/NAME.txt
set -euo pipefail

HOME_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
module=$HOME_DIR/trino-nsc
repo=${NSC_MAVEN_REPO:+-Dmaven.repo.local=$NSC_MAVEN_REPO}
if [[ ! -f $module/target/test-classes/io/nsc/trino/split/BenchmarkPruningAtScale.class ]]; then
    echo "building trino-nsc (tests compiled, not run) ..." >&2
    (cd "$HOME_DIR" && ${NSC_BUILD_LOCK:+flock "$NSC_BUILD_LOCK"} ./mvnw -B -q -o $repo install -pl trino-nsc -am -DskipTests -Dnsc.skipFuzz=true)
fi
classpath=$module/target/benchmark-classpath.txt
(cd "$HOME_DIR" && ./mvnw -B -q -o $repo dependency:build-classpath -pl trino-nsc -Dmdep.includeScope=test -Dmdep.outputFile="$classpath")
# the header of a results file: what ran, when, on what
echo "# benchmarks/pruning-at-scale/run.sh${*:+ $*} (defaults: --files 10000 --row-groups 100 --columns 10 --rounds 5)"
echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(java -version 2>&1 | head -1)"
java -Xmx8g -Djdk.attach.allowAttachSelf=true -XX:+EnableDynamicAgentLoading -cp "$module/target/classes:$module/target/test-classes:$(cat "$classpath")" \
    io.nsc.trino.split.BenchmarkPruningAtScale "$@"
