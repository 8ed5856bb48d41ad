# shellcheck shell=bash
# The catalog, for ./nsc (sourced by it): where a cluster keeps it (h2 in the metadata service,
# or a PostgreSQL server that bin/nsc-postgresql runs) and the metadata services that serve it.

# --- Catalog --------------------------------------------------------------------------------

# ./nsc demo --catalog: h2 (the default) keeps the catalog in one metadata service's embedded
# database; postgresql runs a PostgreSQL server in the cluster's directory (bin/nsc-postgresql)
# and METADATA_SERVICES metadata services over it, any of which serves any call. A cluster keeps
# the catalog it was created with: the state directory remembers it.
catalog() { cat "$STATE/catalog" 2>/dev/null || echo h2; }

is_postgresql_catalog() { [[ $(catalog) == postgresql ]]; }

metadata_components() {
    if is_postgresql_catalog; then
        echo postgresql
        local i
        for ((i = 1; i <= METADATA_SERVICES; i++)); do echo "metadata-$i"; done
    else
        echo metadata
    fi
}

is_metadata_service() { [[ $1 == metadata || $1 == metadata-* ]]; }

# Every metadata service's gRPC address, comma-separated: clients use the first that answers.
metadata_addresses() {
    local component addresses=()
    for component in $(metadata_components); do
        is_metadata_service "$component" && addresses+=("127.0.0.1:$(grpc_port "$component")")
    done
    (IFS=, && echo "${addresses[*]}")
}

# A metadata service that runs (for its metrics), or nothing.
running_metadata_service() {
    local component
    for component in $(metadata_components); do
        if is_metadata_service "$component" && is_running "$component"; then
            echo "$component"
            return 0
        fi
    done
    return 1
}

# --- PostgreSQL -----------------------------------------------------------------------------

POSTGRESQL_DIR=$CLUSTER/postgresql
# the password of the catalog's database role, generated on the first start
POSTGRESQL_PASSWORD_FILE=$STATE/postgresql.password

postgresql_port() { cat "$STATE/postgresql.port" 2>/dev/null || echo "${NSC_POSTGRESQL_PORT:-7432}"; }

postgresql_url() { echo "jdbc:postgresql://127.0.0.1:$(postgresql_port)/nsc"; }

postgresql() { "$NSC_HOME/bin/nsc-postgresql" "$@"; }

# Creates (first time) and starts the server; returns once it accepts connections.
start_postgresql() {
    postgresql install
    postgresql start "$POSTGRESQL_DIR" "$(postgresql_port)" "$POSTGRESQL_PASSWORD_FILE"
    postgresql pid "$POSTGRESQL_DIR" >"$STATE/postgresql.pid"
}

