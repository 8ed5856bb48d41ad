# shellcheck shell=bash
# Java and the build, for ./nsc (sourced by it): the JDK 25, Maven, and nsc-tools run through
# bin/nsc-node.

# --- Java -----------------------------------------------------------------------------------

java_major() { "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'; }

find_java_home() {
    local candidate
    for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25* /usr/lib/jvm/*-25-* /usr/lib/jvm/jdk-25*; do
        [[ -n $candidate && -x $candidate/bin/java && -x $candidate/bin/javac ]] || continue
        if [[ $(java_major "$candidate/bin/java") -ge 25 ]]; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

setup_java() {
    local home
    home=$(find_java_home) || die "nsc needs a JDK 25 (Temurin 25 recommended): none found in JAVA_HOME (${JAVA_HOME:-unset}) or under /usr/lib/jvm. Install one and set JAVA_HOME to it."
    export JAVA_HOME=$home
    export PATH=$JAVA_HOME/bin:$PATH
}

# --- Build ----------------------------------------------------------------------------------

# NSC_BUILD_LOCK: a lock file that serialises Maven runs when several builds share one machine.
mvnw() {
    if [[ -n ${NSC_BUILD_LOCK:-} ]]; then
        (cd "$NSC_HOME" && flock "$NSC_BUILD_LOCK" ./mvnw -B -q "$@")
    else
        (cd "$NSC_HOME" && ./mvnw -B -q "$@")
    fi
}

build() {
    log "building (Maven, tests skipped) ..."
    mvnw install -DskipTests
}

tool() {
    # shellcheck disable=SC2097,SC2098 # NSC_HOME, not exported, passed on to bin/nsc-node
    NSC_HOME=$NSC_HOME "$NSC_HOME/bin/nsc-node" tool "$@"
}
