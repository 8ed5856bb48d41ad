#!/usr/bin/env bash
# Makes a Docker engine usable on a Debian machine without one, as CI needs for the Compose
# product tests: installs Debian's docker.io, docker-compose and debootstrap when missing, and
# starts dockerd in the background (no systemd needed). Needs root. Does nothing when
# `docker info` answers already.
#
#   docker/start-engine.sh [log-file]      [/var/log/nsc-dockerd.log]
set -euo pipefail

LOG=${1:-/var/log/nsc-dockerd.log}

die() { echo "start-engine: $*" >&2; exit 1; }

missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v docker-compose >/dev/null || docker compose version >/dev/null 2>&1 || missing+=(docker-compose)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if ((${#missing[@]})); then
    [[ $(id -u) == 0 ]] || die "installing ${missing[*]} needs root"
    command -v apt-get >/dev/null || die "no apt-get: install ${missing[*]} yourself"
    echo "start-engine: installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null \
        || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null; } \
        || die "apt-get install ${missing[*]} failed"
fi
docker info >/dev/null 2>&1 && { echo "start-engine: a Docker engine answers"; exit 0; }
[[ $(id -u) == 0 ]] || die "starting dockerd needs root"
echo "start-engine: starting dockerd (log: $LOG)"
setsid nohup dockerd >"$LOG" 2>&1 </dev/null &
for _ in $(seq 60); do
    docker info >/dev/null 2>&1 && { echo "start-engine: dockerd answers"; exit 0; }
    sleep 1
done
tail -20 "$LOG" >&2
die "dockerd did not answer within 60 s"
