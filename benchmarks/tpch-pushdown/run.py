#!/usr/bin/env python3
"""TPC-H Q1 and Q6 as written, on a running nsc cluster, in every pushdown mode.

The two canonical pushdown queries aggregate arithmetic over lineitem
(sum(l_extendedprice * (1 - l_discount)), sum(l_extendedprice * l_discount)). Per query and mode
(session property nsc.pushdown = none | raw | filter | auto), after one warm-up, --repeat runs
record the client's wall time, the bytes Trino received from storage nodes (physical input), the
rows storage nodes returned, the aggregation parts (positive when storage nodes computed the
aggregation), storage and Trino CPU. Every mode's rows must equal the others' (doubles to 9
significant digits: sums in another order differ in their last bits). Writes the raw CSV and
prints medians.

    ./nsc demo --scale 1
    python3 benchmarks/tpch-pushdown/run.py --out benchmarks/tpch-pushdown/results/sf1.csv

Standard library only.
"""
import argparse
import os
import platform
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from trino_client import connector_counters, data_size_bytes, duration_seconds, normalized, request, run_query, write_csv  # noqa: E402

MODES = ["none", "raw", "filter", "auto"]
QUERIES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "trino-nsc", "src", "test", "resources", "tpch")
CONNECTOR_METRICS = ["storage_cpu_nanos", "storage_rows_scanned", "storage_rows_returned", "storage_bytes_received", "aggregation_parts"]


def query_text(name):
    with open(os.path.join(QUERIES_DIR, name + ".sql")) as file:
        lines = [line for line in file.read().splitlines() if not line.startswith("--")]
    return "\n".join(lines).replace("lineitem", "nsc.tpch.lineitem")


def query_counters(server, user, query_id):
    info = request(f"{server}/v1/query/{query_id}", user)
    stats = info["queryStats"]
    counters = {"physical_input_bytes": data_size_bytes(stats["physicalInputDataSize"]),
                "trino_cpu_seconds": round(duration_seconds(stats["totalCpuTime"]), 3)}
    counters.update(connector_counters(info, (), CONNECTOR_METRICS))
    counters["storage_cpu_seconds"] = round(counters.pop("storage_cpu_nanos") / 1e9, 3)
    return counters


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default="http://127.0.0.1:8080")
    parser.add_argument("--user", default="benchmark")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--queries", default="q01,q06")
    parser.add_argument("--out", required=True, help="CSV file for the raw results")
    args = parser.parse_args()

    records = []
    names = args.queries.split(",")
    for name in names:
        sql = query_text(name)
        expected = None
        for mode in MODES:
            session = f"nsc.pushdown={mode}"
            run_query(args.server, args.user, sql, session=session)  # warm-up: footer caches, JIT
            for attempt in range(1, args.repeat + 1):
                query_id, rows, wall = run_query(args.server, args.user, sql, session=session)
                if expected is None:
                    expected = normalized(rows)
                elif normalized(rows) != expected:
                    raise RuntimeError(f"{name} in mode {mode} returned {rows}, other modes {expected}")
                records.append({"query": name, "mode": mode, "run": attempt, "wall_seconds": round(wall, 3), "rows": len(rows),
                                **query_counters(args.server, args.user, query_id)})

    write_csv(args.out, records)
    print(f"machine: {platform.node()} {platform.machine()} ({os.cpu_count()} cpus), python {platform.python_version()}")
    print(f"{'query':6} {'mode':7} {'median s':>9} {'bytes from storage':>19} {'rows from storage':>18} {'agg parts':>10} {'storage cpu s':>14} {'trino cpu s':>12}")
    for name in names:
        for mode in MODES:
            runs = [r for r in records if r["query"] == name and r["mode"] == mode]
            median = lambda key: statistics.median(r[key] for r in runs)
            print(f"{name:6} {mode:7} {median('wall_seconds'):9.3f} {int(median('physical_input_bytes')):19,d} {int(median('storage_rows_returned')):18,d} "
                  f"{int(median('aggregation_parts')):10d} {median('storage_cpu_seconds'):14.3f} {median('trino_cpu_seconds'):12.3f}")
    print(f"raw results: {args.out}")


if __name__ == "__main__":
    main()
