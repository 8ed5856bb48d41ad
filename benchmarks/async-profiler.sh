# shellcheck shell=bash
# async-profiler's agent library from Maven Central (tools.profiler:async-profiler), cached under
# $NSC_CACHE; sourced by the profiling scripts. async_profiler_library prints its path, fetching
# it first when missing.
ASYNC_PROFILER_VERSION=4.1

async_profiler_library() {
    local cache=${NSC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nsc}
    local profiler=$cache/async-profiler-$ASYNC_PROFILER_VERSION
    if [[ ! -f $profiler/linux-x64/libasyncProfiler.so ]]; then
        mkdir -p "$profiler"
        curl -fsSL -o "$profiler.jar" "${NSC_MAVEN_REPO:-https://repo.maven.apache.org/maven2}/tools/profiler/async-profiler/$ASYNC_PROFILER_VERSION/async-profiler-$ASYNC_PROFILER_VERSION.jar"
        unzip -o -q "$profiler.jar" 'linux-x64/libasyncProfiler.so' -d "$profiler"
    fi
    echo "$profiler/linux-x64/libasyncProfiler.so"
}
