# shellcheck shell=bash
# The downloads of ./nsc (sourced by it): the Trino server and CLI from Maven Central, checked
# against their SHA-1 and cached under $NSC_CACHE.

download() { # url target
    local url=$1 target=$2
    [[ -s $target ]] && return 0
    mkdir -p "$(dirname "$target")"
    log "downloading $url"
    curl -fsSL --retry 3 -o "$target.part" "$url" || die "cannot download $url"
    local expected actual
    expected=$(curl -fsSL "$url.sha1" | cut -c1-40) || die "cannot download $url.sha1"
    actual=$(sha1sum "$target.part" | cut -c1-40)
    [[ $expected == "$actual" ]] || die "checksum mismatch for $url (expected $expected, got $actual)"
    mv "$target.part" "$target"
}

# The plugins of the server install: the catalogs every Trino of nsc carries, password logins, the
# coordinator's file-based resource groups, and Trino's memory connector, which a node loads
# only when given a catalog of it (the product tests keep their TPC-DS reference tables there).
TRINO_PLUGINS=(tpch tpcds password-authenticators resource-group-managers memory)

trino_server_dir() { echo "$NSC_CACHE/trino-server-$TRINO_VERSION"; }

trino_server_installed() { # dir
    local plugin
    [[ -x $1/bin/launcher ]] || return 1
    for plugin in "${TRINO_PLUGINS[@]}"; do
        [[ -d $1/plugin/$plugin ]] || return 1
    done
}

install_trino_server() {
    local dir tarball
    dir=$(trino_server_dir)
    # an install from an older nsc lacks a plugin it now loads: install again
    trino_server_installed "$dir" && return 0
    tarball=$NSC_CACHE/trino-server-$TRINO_VERSION.tar.gz
    download "$NSC_MAVEN_REPO/io/trino/trino-server/$TRINO_VERSION/trino-server-$TRINO_VERSION.tar.gz" "$tarball"
    log "unpacking the Trino server (bin, lib and the ${TRINO_PLUGINS[*]} plugins only)"
    local top=trino-server-$TRINO_VERSION plugin links
    local wanted=("$top/bin" "$top/lib" "$top/NOTICE")
    for plugin in "${TRINO_PLUGINS[@]}"; do wanted+=("$top/plugin/$plugin"); done
    # The tarball stores a jar that several plugins share once, and hard links to it from the
    # others: extract the files the wanted ones link to as well, then drop the plugins they came with.
    mapfile -t links < <(tar -tvzf "$tarball" "${wanted[@]}" | sed -n 's/.* link to //p' | sort -u)
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
    tar -xzf "$tarball" -C "$dir.tmp" --strip-components=1 "${links[@]}" "${wanted[@]}"
    for plugin in "$dir.tmp"/plugin/*; do
        [[ " ${TRINO_PLUGINS[*]} " == *" $(basename "$plugin") "* ]] || rm -rf "$plugin"
    done
    rm -rf "$dir"
    mv "$dir.tmp" "$dir"
    rm -f "$tarball"
}

trino_cli_jar() { echo "$NSC_CACHE/trino-cli-$TRINO_VERSION-executable.jar"; }

install_trino_cli() {
    download "$NSC_MAVEN_REPO/io/trino/trino-cli/$TRINO_VERSION/trino-cli-$TRINO_VERSION-executable.jar" "$(trino_cli_jar)"
}
