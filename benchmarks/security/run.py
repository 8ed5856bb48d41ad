#!/usr/bin/env python3
"""Full-scan throughput with and without TLS between Trino and the storage nodes, in one run.

Starts two local clusters one after the other with ./nsc demo (same scale, same generated data,
own state directories and ports): first with mutual TLS (the default), then with NSC_INSECURE=1.
On each it runs a full scan of lineitem that reads every column chunk it needs from storage:

    SELECT count(*), sum(l_extendedprice), sum(l_quantity), max(l_comment) FROM nsc.tpch.lineitem

in pushdown modes raw (byte ranges, decoded by Trino) and filter (storage nodes decode and send
pages), --repeat times after one warm-up, and records the client's wall time and the bytes Trino
received from storage (physical input). Prints the median MB/s per transport and mode, writes the
raw CSV, and stops each cluster when done with it.

    python3 benchmarks/security/run.py --scale 1 --repeat 5 --out benchmarks/security/results/sf1-tls.csv

Standard library only. Takes a few minutes per cluster (generation and load at each start).
"""
import argparse
import os
import platform
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from trino_client import data_size_bytes, request, run_query, write_csv  # noqa: E402

HOME = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUERY = "SELECT count(*), sum(l_extendedprice), sum(l_quantity), max(l_comment) FROM nsc.tpch.lineitem"
MODES = ["raw", "filter"]
# transport -> (environment, port base, Trino port); ports apart from a developer's ./nsc demo
CLUSTERS = {
    "tls": ({}, 7270, 8280),
    "plaintext": ({"NSC_INSECURE": "1"}, 7370, 8380),
}


def nsc(environment, *args):
    subprocess.run([os.path.join(HOME, "nsc"), *args], env={**os.environ, **environment}, check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", default="1")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--user", default="benchmark")
    parser.add_argument("--out", required=True, help="CSV file for the raw results")
    args = parser.parse_args()

    records = []
    expected = None
    for transport, (extra, port_base, trino_port) in CLUSTERS.items():
        environment = {**extra, "NSC_VAR": os.path.join(HOME, "var", f"bench-{transport}"), "NSC_PORT_BASE": str(port_base)}
        nsc(environment, "demo", "--scale", args.scale, "--trino-port", str(trino_port))
        server = f"http://127.0.0.1:{trino_port}"
        try:
            for mode in MODES:
                session = f"nsc.pushdown={mode}"
                run_query(server, args.user, QUERY, session=session)  # warm-up: footer caches, JIT, TLS sessions
                for attempt in range(1, args.repeat + 1):
                    query_id, rows, wall = run_query(server, args.user, QUERY, session=session)
                    if expected is None:
                        expected = rows
                    elif rows != expected:
                        raise RuntimeError(f"{transport}/{mode} returned {rows}, expected {expected}")
                    stats = request(f"{server}/v1/query/{query_id}", args.user)["queryStats"]
                    received = data_size_bytes(stats["physicalInputDataSize"])
                    records.append({"transport": transport, "mode": mode, "run": attempt, "wall_seconds": round(wall, 3),
                                    "bytes_from_storage": received, "mb_per_second": round(received / wall / 1e6, 1)})
        finally:
            nsc(environment, "stop")

    write_csv(args.out, records)
    print(f"machine: {platform.node()} {platform.machine()} ({os.cpu_count()} cpus), python {platform.python_version()}")
    print(f"query: {QUERY} (TPC-H scale {args.scale}), median of {args.repeat} runs")
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
