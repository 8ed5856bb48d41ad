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

HOME_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
module=$HOME_DIR/trino-nsc
repo=${NSC_MAVEN_REPO:+-Dmaven.repo.local=$NSC_MAVEN_REPO}
if [[ ! -f $module/target/test-classes/io/nsc/trino/split/BenchmarkSplitGeneration.class ]]; then
    echo "building trino-nsc (tests compiled, not run) ..." >&2
    (cd "$HOME_DIR" && ${NSC_BUILD_LOCK:+flock "$NSC_BUILD_LOCK"} ./mvnw -B -q -o $repo install -pl trino-nsc -am -DskipTests -Dnsc.skipFuzz=true)
fi
classpath=$module/target/benchmark-classpath.txt
(cd "$HOME_DIR" && ./mvnw -B -q -o $repo dependency:build-classpath -pl trino-nsc -Dmdep.includeScope=test -Dmdep.outputFile="$classpath")
# the header of a results file: what ran, when, on what
echo "# benchmarks/split-generation/run.sh${*:+ $*} (defaults: --files 20000 --columns 16 --batch 1000 --rounds 5)"
echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(java -version 2>&1 | head -1)"
java -Xmx4g -cp "$module/target/classes:$module/target/test-classes:$(cat "$classpath")" \
    io.nsc.trino.split.BenchmarkSplitGeneration "$@"
