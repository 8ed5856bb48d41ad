# shellcheck shell=bash
# ./nsc bench: the side-by-side benchmark (sourced by ./nsc).

# What the benchmark's Trino loads besides nsc's plugins: Hive and Iceberg, the status quo it is
# compared with, as Trino publishes them (one zip per plugin on Maven Central); and the S3 server.
BENCH_PLUGINS=(hive iceberg)
S3PROXY_VERSION=2.6.0

bench_plugin_dir() { echo "$NSC_CACHE/trino-plugins-$TRINO_VERSION/$1"; }

install_bench_plugins() {
    local plugin dir zip
    for plugin in "${BENCH_PLUGINS[@]}"; do
        dir=$(bench_plugin_dir "$plugin")
        [[ -d $dir ]] && continue
        zip=$NSC_CACHE/trino-$plugin-$TRINO_VERSION.zip
        download "$NSC_MAVEN_REPO/io/trino/trino-$plugin/$TRINO_VERSION/trino-$plugin-$TRINO_VERSION.zip" "$zip"
        log "unpacking the Trino $plugin plugin"
        rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
        python3 -m zipfile -e "$zip" "$dir.tmp"
        mv "$dir.tmp/trino-$plugin-$TRINO_VERSION" "$dir"
        rm -rf "$dir.tmp" "$zip"
    done
}

s3proxy_jar() { echo "$NSC_CACHE/s3proxy-$S3PROXY_VERSION-jar-with-dependencies.jar"; }

# The benchmark itself is benchmarks/side-by-side/run.py; this provides what it runs: the build,
# the Trino server, the hive and iceberg plugins and s3proxy.
cmd_bench() {
    local arg
    for arg in "$@"; do
        [[ $arg == -h || $arg == --help ]] && exec python3 "$NSC_HOME/benchmarks/side-by-side/run.py" --help
    done
    [[ $(id -u) == 0 ]] || die "./nsc bench needs root: it creates a network namespace and shapes its link with tc"
    { command -v ip >/dev/null && command -v tc >/dev/null; } || die "./nsc bench needs ip and tc (Debian: apt-get install iproute2)"
    command -v openssl >/dev/null || die "./nsc bench needs openssl (the S3 server's TLS key store)"
    setup_java
    if [[ ${NSC_SKIP_BUILD:-} != 1 ]]; then
        build
    fi
    install_trino_server
    install_bench_plugins
    download "$NSC_MAVEN_REPO/org/gaul/s3proxy/$S3PROXY_VERSION/s3proxy-$S3PROXY_VERSION-jar-with-dependencies.jar" "$(s3proxy_jar)"
    NSC_VAR=$NSC_VAR NSC_BENCH_COMMAND="./nsc bench $*" NSC_BENCH_TRINO_SERVER=$(trino_server_dir) \
        NSC_BENCH_PLUGINS="$(bench_plugin_dir hive),$(bench_plugin_dir iceberg)" NSC_BENCH_S3PROXY_JAR=$(s3proxy_jar) \
        exec python3 "$NSC_HOME/benchmarks/side-by-side/run.py" "$@"
}

