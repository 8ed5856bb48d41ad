#!/usr/bin/env bash
# Builds the nsc images from this checkout's Maven build (run `./nsc build` first) and an
# unpacked Trino server, as Trino's own image build does: the artifacts are staged into one
# context directory and `docker build` only copies them.
#
#   docker/build-images.sh <trino-server-dir> <staging-dir>
#
# BASE_IMAGE: the base of every image. Unset: eclipse-temurin:25-jdk when it is present or can
# be pulled, else the offline base docker/build-base-image.sh makes (which needs root).
# NSC_IMAGE_TAG: the images' tag [0.1-SNAPSHOT].
set -euo pipefail

NSC_HOME=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VERSION=0.1-SNAPSHOT
TAG=${NSC_IMAGE_TAG:-$VERSION}
PUBLIC_BASE=eclipse-temurin:25-jdk
OFFLINE_BASE=nsc/base:bookworm-jdk25

die() { echo "build-images: $*" >&2; exit 1; }
log() { echo "build-images: $*" >&2; }

[[ $# == 2 ]] || die "usage: docker/build-images.sh <trino-server-dir> <staging-dir>"
server=$1 context=$2
[[ -x $server/bin/launcher && -d $server/lib ]] || die "$server is not an unpacked Trino server"

choose_base() {
    if [[ -n ${BASE_IMAGE:-} ]]; then
        echo "$BASE_IMAGE"
    elif docker image inspect "$PUBLIC_BASE" >/dev/null 2>&1 || docker pull -q "$PUBLIC_BASE" >/dev/null 2>&1; then
        echo "$PUBLIC_BASE"
    else
        log "$PUBLIC_BASE cannot be pulled (no registry reachable?): using the offline base $OFFLINE_BASE"
        "$NSC_HOME/docker/build-base-image.sh" "$OFFLINE_BASE" >&2
        echo "$OFFLINE_BASE"
    fi
}

# Copies (hard-links where the file system allows) what the images take into the context.
stage() {
    local module
    rm -rf "$context"
    mkdir -p "$context"
    cp "$NSC_HOME/docker/Dockerfile" "$context/"
    cp -r "$NSC_HOME/bin" "$context/bin"
    for module in nsc-metadata nsc-storage nsc-tools; do
        [[ -f $NSC_HOME/$module/target/$module-$VERSION.jar ]] || die "$module is not built: run ./nsc build"
        mkdir -p "$context/$module/target"
        link_or_copy "$NSC_HOME/$module/target/$module-$VERSION.jar" "$context/$module/target/"
        link_or_copy "$NSC_HOME/$module/target/lib" "$context/$module/target/"
    done
    [[ -d $NSC_HOME/trino-nsc/target/trino-nsc-$VERSION ]] || die "trino-nsc is not built: run ./nsc build"
    mkdir -p "$context/trino-nsc/target"
    link_or_copy "$NSC_HOME/trino-nsc/target/trino-nsc-$VERSION" "$context/trino-nsc/target/"
    link_or_copy "$server" "$context/trino-server"
}

link_or_copy() { cp -al "$1" "$2" 2>/dev/null || cp -a "$1" "$2"; }

base=$(choose_base)
stage
for target in nsc metadata storage trino; do
    log "building nsc/$target:$TAG on $base"
    docker build -q --build-arg BASE_IMAGE="$base" --target "$target" -t "nsc/$target:$TAG" "$context" >/dev/null
done
for target in nsc metadata storage trino; do
    log "nsc/$target:$TAG $(docker image inspect --format '{{.Size}}' "nsc/$target:$TAG" | awk '{printf "%.0f MB", $1 / 1e6}')"
done
