# shellcheck shell=bash
# ./nsc test: every test, and ShellCheck over the scripts (sourced by ./nsc).

cmd_test() {
    setup_java
    # the catalog tests run against PostgreSQL too, and a product-test cluster keeps its catalog in one
    postgresql install
    # the shell scripts first (seconds): a finding fails the run, and every test still runs
    local status=0 scripts=0
    "$NSC_HOME/bin/nsc-shellcheck" || scripts=$?
    log "running every test (unit, connector, product tests)"
    # stale reports would be counted below: every module's reports come from this run
    rm -rf "$NSC_HOME"/*/target/surefire-reports*
    (cd "$NSC_HOME" && ./mvnw -B install -Dnsc.skipProductTests=false) || status=$?
    benchmark_unit_tests || status=$?
    if ((status == 0)); then
        postgresql_product_tests || status=$?
        several_hosts_test || status=$?
        compose_product_tests || status=$?
    else
        log "the product tests on the PostgreSQL, several-hosts and Docker Compose clusters did not run: the build above failed"
    fi
    test_summary
    if ((scripts != 0)); then
        log "FAILED: ShellCheck over the shell scripts (see the start of this run; bin/nsc-shellcheck runs it alone)"
        ((status != 0)) || status=$scripts
    fi
    return $status
}

# The benchmarks' own checks (answer comparison, verdicts and reports from canned runs):
# standard library only, a second or two, no testbed or cluster.
benchmark_unit_tests() {
    local benchmark
    for benchmark in side-by-side tpch-scale; do
        log "running the $benchmark benchmark's unit tests"
        (cd "$NSC_HOME/benchmarks/$benchmark" && PYTHONDONTWRITEBYTECODE=1 python3 -m unittest discover -p 'test_*.py') || return 1
    done
}

# The product tests again, on a process cluster whose catalog is in PostgreSQL, served by two
# metadata services, each killed in turn. Only TestMetadataFailover: it runs reads against the
# tpch catalog and writes through each survivor, and the CI's time goes to a second cluster start.
postgresql_product_tests() {
    log "running the product tests on the process cluster with --catalog postgresql"
    (cd "$NSC_HOME" && ./mvnw -B install -pl product-tests -Dnsc.skipProductTests=false -Dnsc.cluster=process-postgresql \
        -Dtest=TestMetadataFailover)
}

# The deployment of docs/operating/several-machines.md: each component in a network namespace
# of its own (its own address and host name, its own certificate bundle, PostgreSQL over TLS),
# TPC-H loaded and queried, a metadata service killed. Needs root and network namespaces; the
# script says SKIPPED with the reason where it cannot run (3 to 8 minutes on 2 cores).
several_hosts_test() {
    log "running the several-hosts test (product-tests/several-hosts/run.sh)"
    "$NSC_HOME/product-tests/several-hosts/run.sh" && return 0
    log "FAILED: the several-hosts test (its directory with every host's logs is named above)"
    return 1
}

# The product tests again, on the Compose cluster, where a Docker engine is usable.
# NSC_REQUIRE_DOCKER=1 (CI) makes a missing engine a failure instead of a skip.
compose_product_tests() {
    if ! docker_with_compose; then
        if [[ ${NSC_REQUIRE_DOCKER:-0} == 1 ]]; then
            log "NSC_REQUIRE_DOCKER=1 but no Docker engine with Compose is usable (docker/start-engine.sh installs and starts one as root)"
            return 1
        fi
        log "SKIPPED: the product tests on the Docker Compose cluster: no Docker engine with Compose is usable here (docker/start-engine.sh installs and starts one as root)"
        return 0
    fi
    log "running the product tests on the Docker Compose cluster"
    # the 22 TPC-H queries, the writes, a storage container killed mid-suite and the metadata
    # container restarted on its volume; the rest (./nsc itself, its certificate directory,
    # backups, repair, BI clients, TPC-DS: the same connector code as here, 99 s on Compose) is
    # the process cluster's, run above; TestClusterSecurity for what only Compose has: a key
    # volume per container
    (cd "$NSC_HOME" && ./mvnw -B install -pl product-tests -Dnsc.skipProductTests=false -Dnsc.cluster=compose \
        -Dtest='TestTpchQueries,TestWrites,TestComponentFailures,TestClusterSecurity')
}

# One closing line over every module's Surefire reports, e.g. "nsc: 295 passed, 0 failed, 0 skipped".
test_summary() {
    python3 - "$NSC_HOME" <<'PY'
import glob, re, sys
totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
for report in glob.glob(sys.argv[1] + "/*/target/surefire-reports*/TEST-*.xml"):
    with open(report, encoding="utf-8") as file:
        suite = re.search(r"<testsuite[^>]*>", file.read(4096)).group(0)
    for key in totals:
        totals[key] += int(re.search(key + r'="(\d+)"', suite).group(1))
failed = totals["failures"] + totals["errors"]
passed = totals["tests"] - failed - totals["skipped"]
print(f"nsc: {passed} passed, {failed} failed, {totals['skipped']} skipped")
PY
}
