# shellcheck shell=bash
# ./nsc fuzz: the Jazzer fuzz targets (sourced by ./nsc).

# target: module and the Surefire execution that fuzzes it (Jazzer fuzzes one test per JVM)
FUZZ_TARGETS=(scan-request:nsc-parquet:fuzz-scan-request page-codec:nsc-parquet:fuzz-page-codec footer:nsc-protocol:fuzz-footer upload:nsc-storage:fuzz-upload upload-scan:nsc-storage:fuzz-upload-scan)

cmd_fuzz() {
    local duration=5m selected=() entry target module execution log runs findings status=0
    while (($#)); do
        case $1 in
            --duration) duration=${2:?--duration needs a value}; shift 2 ;;
            -*) die "unknown fuzz option: $1 (try --duration D)" ;;
            *) selected+=("$1"); shift ;;
        esac
    done
    [[ $duration =~ ^([0-9]+[smh])+$ ]] || die "--duration must be like 90s, 10m or 1h, got '$duration'"
    ((${#selected[@]})) || selected=(scan-request page-codec footer upload)
    setup_java
    log "building the fuzz targets' modules (tests skipped) ..."
    mvnw install -DskipTests -pl nsc-protocol,nsc-parquet,nsc-storage
    mkdir -p "$NSC_VAR/fuzz"
    printf '%-14s %12s %9s  %s\n' TARGET EXECUTIONS FINDINGS LOG >"$NSC_VAR/fuzz/summary"
    for target in "${selected[@]}"; do
        entry=$(printf '%s\n' "${FUZZ_TARGETS[@]}" | grep "^$target:") || die "unknown fuzz target: $target (one of: scan-request page-codec footer upload upload-scan)"
        IFS=: read -r _ module execution <<<"$entry"
        log="$NSC_VAR/fuzz/$target.log"
        log "fuzzing $target for $duration (log: $log)"
        # findings are the crash-* inputs Jazzer writes next to the target's seeds (where they become
        # regression inputs of the build until fixed), or into the execution's working directory
        touch "$NSC_VAR/fuzz/$target.start"
        (cd "$NSC_HOME" && ${NSC_BUILD_LOCK:+flock "$NSC_BUILD_LOCK"} ./mvnw -B surefire:test@"$execution" -pl "$module" -Dnsc.fuzz.duration="$duration") >"$log" 2>&1 || status=1
        runs=$(sed -n 's/^Done \([0-9]*\) runs in .*/\1/p' "$log" | tail -1)
        findings=$(find "$NSC_HOME/$module/src/test/resources" "$NSC_HOME/$module/target/fuzz" -name 'crash-*' -newer "$NSC_VAR/fuzz/$target.start" 2>/dev/null | wc -l)
        printf '%-14s %12s %9s  %s\n' "$target" "${runs:-?}" "$findings" "$log" >>"$NSC_VAR/fuzz/summary"
        if ((findings > 0)); then
            find "$NSC_HOME/$module/src/test/resources" "$NSC_HOME/$module/target/fuzz" -name 'crash-*' -newer "$NSC_VAR/fuzz/$target.start" -exec cp {} "$NSC_VAR/fuzz/" \; -print >&2
            grep -m1 -A12 'FuzzTestFindingException' "$log" >&2 || true
        fi
    done
    cat "$NSC_VAR/fuzz/summary"
    ((status == 0)) || log "a target failed or found something: see its log; crash inputs are copied to $NSC_VAR/fuzz/"
    return $status
}
