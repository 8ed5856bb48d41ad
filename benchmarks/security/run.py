#!/usr/bin/env python3
"""Full-scan throughput with and without TLS between Trino and the storage nodes, in one run.

Starts two local clusters with ./nsc demo (same scale, same generated data, own state
directories and ports): one with mutual TLS (the default), one with NSC_INSECURE=1. Both stay
up while the queries run, alternating between them run by run, so that whatever else the
machine does weighs on both alike. The query reads every lineitem column it names from storage
and leaves the arithmetic to Trino, so no mode can answer it from a pushed-down aggregate:

    SELECT count(*), sum(l_extendedprice * (1 - l_discount)), max(length(l_comment)) FROM nsc.tpch.lineitem

It runs in pushdown modes raw (byte ranges, decoded by Trino) and filter (storage nodes decode
and send pages), --repeat times per cluster after one warm-up each, recording the client's wall
time and the bytes Trino received from storage (physical input). Prints the median MB/s per
transport and mode and the machine's load average, writes the raw CSV, and stops both clusters.

    python3 benchmarks/security/run.py --scale 1 --repeat 5 --out benchmarks/security/results/sf1-tls.csv

Standard library only. Each cluster generates and loads TPC-H on its first start.
"""
import argparse
import os
import platform
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from trino_client import data_size_bytes, normalized, request, run_query, write_csv  # noqa: E402

HOME = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUERY = "SELECT count(*), sum(l_extendedprice * (1 - l_discount)), max(length(l_comment)) FROM nsc.tpch.lineitem"
MODES = ["raw", "filter"]
# transport -> (environment, port base, Trino port); ports apart from a developer's ./nsc demo
CLUSTERS = {
    "tls": ({}, 7270, 8280),
    "plaintext": ({"NSC_INSECURE": "1"}, 7370, 8380),
}


def environment_of(transport):
    extra, port_base, _ = CLUSTERS[transport]
    return {**extra, "NSC_VAR": os.path.join(HOME, "var", f"bench-{transport}"), "NSC_PORT_BASE": str(port_base)}


def nsc(transport, *args):
    subprocess.run([os.path.join(HOME, "nsc"), *args], env={**os.environ, **environment_of(transport)}, check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", default="1")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--user", default="benchmark")
    parser.add_argument("--out", required=True, help="CSV file for the raw results")
    args = parser.parse_args()

    records = []
    expected = None
    load = []
    try:
        for transport, (_, _, trino_port) in CLUSTERS.items():
            nsc(transport, "demo", "--scale", args.scale, "--trino-port", str(trino_port))
        for mode in MODES:
            session = f"nsc.pushdown={mode}"
            for transport, (_, _, trino_port) in CLUSTERS.items():
                run_query(f"http://127.0.0.1:{trino_port}", args.user, QUERY, session=session)  # warm-up: caches, JIT, TLS sessions
            for attempt in range(1, args.repeat + 1):
                for transport, (_, _, trino_port) in CLUSTERS.items():
                    server = f"http://127.0.0.1:{trino_port}"
                    query_id, rows, wall = run_query(server, args.user, QUERY, session=session)
                    if expected is None:
                        expected = normalized(rows)
                    elif normalized(rows) != expected:
                        raise RuntimeError(f"{transport}/{mode} returned {rows}, expected {expected}")
                    received = data_size_bytes(request(f"{server}/v1/query/{query_id}", args.user)["queryStats"]["physicalInputDataSize"])
                    records.append({"transport": transport, "mode": mode, "run": attempt, "wall_seconds": round(wall, 3),
                                    "bytes_from_storage": received, "mb_per_second": round(received / wall / 1e6, 1)})
                    load.append(os.getloadavg()[0])
    finally:
        for transport in CLUSTERS:
            nsc(transport, "stop")

    write_csv(args.out, records)
    print(f"machine: {platform.node()} {platform.machine()} ({os.cpu_count()} cpus), python {platform.python_version()}; "
          f"1-minute load average during the runs: {min(load):.2f} to {max(load):.2f}")
    print(f"query: {QUERY} (TPC-H scale {args.scale}), median of {args.repeat} runs, clusters alternating")
    print(f"{'transport':10} {'mode':7} {'median s':>9} {'bytes from storage':>19} {'MB/s':>7}")
    for transport in CLUSTERS:
        for mode in MODES:
            runs = [r for r in records if r["transport"] == transport and r["mode"] == mode]
            wall = statistics.median(r["wall_seconds"] for r in runs)
            received = statistics.median(r["bytes_from_storage"] for r in runs)
            print(f"{transport:10} {mode:7} {wall:9.3f} {int(received):19,d} {received / wall / 1e6:7.1f}")
    print(f"raw results: {args.out}")


if __name__ == "__main__":
    main()
