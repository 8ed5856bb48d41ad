#!/usr/bin/env bash
# The Compose cluster against the process cluster: how long `./nsc compose up` takes from an
# engine without nsc images to the first answered query, the images' sizes, and the 22 TPC-H
# queries (checked against Trino's tpch catalog) on each cluster at the same scale.
#
#   benchmarks/clusters/run.sh compose [scale]            [1]
#   benchmarks/clusters/run.sh process [scale] [workers]  [1] [0]
#
# Results go to benchmarks/clusters/results/: <cluster>-sf<scale>.{csv,txt} from
# benchmarks/tpch-scale/run.py (one cold run and one warm run per query, pushdown mode auto),
# and for compose the `up` log with its time and the image sizes. Needs port 8080 free.
set -euo pipefail

cd "$(dirname "$0")/../.."
cluster=${1:?compose or process} scale=${2:-1} workers=${3:-0}
results=benchmarks/clusters/results
mkdir -p "$results"
reference=$results/sf$scale-reference.json

case $cluster in
    compose)
        # a clean engine: no nsc image, not even the offline base
        ./nsc compose down --volumes >/dev/null 2>&1 || true
        docker images --format '{{.Repository}}:{{.Tag}}' | { grep '^nsc/' || true; } | { xargs -r docker rmi -f >/dev/null || true; }
        start=$SECONDS
        # the modules as built; the images from nothing
        NSC_SKIP_BUILD=1 ./nsc compose up --scale "$scale" 2>&1 | tee "$results/compose-up-sf$scale.log"
        echo "compose up from a clean engine to the first answered query: $((SECONDS - start)) s" | tee -a "$results/compose-up-sf$scale.log"
        docker images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep '^nsc/' | tee -a "$results/compose-up-sf$scale.log"
        docker system df | tee -a "$results/compose-up-sf$scale.log"
        ;;
    process)
        # a cluster of its own: the one in ./var may hold another scale, which demo keeps
        export NSC_VAR=${NSC_VAR:-$PWD/var/bench-clusters-sf$scale}
        if ((workers > 0)); then
            ./nsc demo --scale "$scale" --workers "$workers"
        else
            ./nsc demo --scale "$scale"
        fi
        ;;
    *) echo "cluster must be compose or process" >&2; exit 2 ;;
esac
name=$cluster-sf$scale
((workers == 0)) || name+=-w$workers
python3 benchmarks/tpch-scale/run.py --server http://127.0.0.1:8080 --scale "$scale" --modes auto --repeat 1 \
    --reference "$reference" --out "$results/$name"
