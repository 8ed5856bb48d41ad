#!/usr/bin/env bash
# Builds the nsc images' base image without a registry: Debian bookworm from Debian's package
# mirror (debootstrap), with this machine's JDK 25 copied in and laid out as the public
# eclipse-temurin images lay it out (/opt/java/openjdk, JAVA_HOME, PATH), so docker/Dockerfile
# treats both bases alike.
#
#   docker/build-base-image.sh [image-name]      [nsc/base:bookworm-jdk25]
#
# Settings: JAVA_HOME (the JDK 25 to copy; default: the one ./nsc finds), NSC_DEBIAN_MIRROR
# [http://deb.debian.org/debian]. Needs root (debootstrap), debootstrap and a Docker engine.
# Does nothing when the image exists already.
set -euo pipefail

IMAGE=${1:-nsc/base:bookworm-jdk25}
MIRROR=${NSC_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# what bin/nsc-node and the health checks call besides Java
PACKAGES=ca-certificates,curl,python3

die() { echo "build-base-image: $*" >&2; exit 1; }

if docker image inspect "$IMAGE" >/dev/null 2>&1; then
    echo "build-base-image: $IMAGE exists"
    exit 0
fi
[[ $(id -u) == 0 ]] || die "debootstrap needs root"
command -v debootstrap >/dev/null || die "debootstrap is missing (apt-get install debootstrap)"
[[ -n ${JAVA_HOME:-} && -x $JAVA_HOME/bin/java ]] || die "JAVA_HOME must name the JDK 25 to put in the image"
version=$("$JAVA_HOME/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
[[ $version == 25 ]] || die "$JAVA_HOME is Java $version; the images run Java 25"

root=$(mktemp -d "${TMPDIR:-/tmp}/nsc-base-image.XXXXXX")
trap 'rm -rf "$root"' EXIT
echo "build-base-image: debootstrap bookworm into $root"
debootstrap --variant=minbase --include="$PACKAGES" bookworm "$root" "$MIRROR" >"$root.log" 2>&1 \
    || { tail -20 "$root.log" >&2; rm -f "$root.log"; die "debootstrap failed"; }
rm -f "$root.log"
# an image needs no package lists, caches or man pages
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/usr/share/man/* "$root"/usr/share/doc/*
mkdir -p "$root/opt/java"
cp -a "$(readlink -f "$JAVA_HOME")" "$root/opt/java/openjdk"
echo "build-base-image: importing $IMAGE"
tar -C "$root" -c . | docker import \
    --change 'ENV JAVA_HOME=/opt/java/openjdk' \
    --change 'ENV PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --message "Debian bookworm (minbase) with $(basename "$(readlink -f "$JAVA_HOME")")" \
    - "$IMAGE" >/dev/null
echo "build-base-image: built $IMAGE ($(docker image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1 / 1e6}'))"
