#!/usr/bin/env python3
"""Coordinator-side pruning on a running nsc cluster: row groups scanned and bytes read.

Runs each query of QUERIES against Trino's REST API several times and records, per run, the
wall time seen by the client, the bytes Trino received from the storage nodes (physical input)
and the split-generation metrics nsc reports (row groups total / pruned, splits). Writes a CSV
and prints a summary with medians.

    ./nsc demo --scale 1
    python3 benchmarks/read-path/run.py --repeat 5 --out benchmarks/read-path/results/sf1.csv

Standard library only, so it runs wherever the cluster does.
"""
import argparse
import json
import os
import platform
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from trino_client import connector_counters, data_size_bytes, request, run_query, write_csv  # noqa: E402

# Label, fraction of lineitem rows the predicate matches (TPC-H sf1 ship dates span
# 1992-01-02..1998-12-01, ~2526 days), and SQL.
QUERIES = [
    ("shipdate_1pct", "SELECT count(*), sum(l_extendedprice) FROM nsc.tpch.lineitem "
                      "WHERE l_shipdate BETWEEN DATE '1995-06-01' AND DATE '1995-06-25'"),
    ("shipdate_100pct", "SELECT count(*), sum(l_extendedprice) FROM nsc.tpch.lineitem "
                        "WHERE l_shipdate BETWEEN DATE '1992-01-01' AND DATE '1998-12-31'"),
    ("shipdate_none", "SELECT count(*), sum(l_extendedprice) FROM nsc.tpch.lineitem "
                      "WHERE l_shipdate > DATE '2001-01-01'"),
]
SPLIT_METRICS = ["row_groups_total", "row_groups_pruned_by_stats", "row_groups_fully_matching", "splits"]










def query_counters(server, user, query_id):
    info = request(f"{server}/v1/query/{query_id}", user)
    counters = {"physical_input_bytes": data_size_bytes(info["queryStats"]["physicalInputDataSize"])}
    counters.update(connector_counters(info, SPLIT_METRICS))
    return counters


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default="http://127.0.0.1:8080")
    parser.add_argument("--user", default="benchmark")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", required=True, help="CSV file for the raw results")
    args = parser.parse_args()

    records = []
    for label, sql in QUERIES:
        run_query(args.server, args.user, sql)  # warm-up: footer cache, JIT
        for attempt in range(1, args.repeat + 1):
            query_id, rows, wall = run_query(args.server, args.user, sql)
            counters = query_counters(args.server, args.user, query_id)
            records.append({"query": label, "run": attempt, "wall_seconds": round(wall, 3),
                            "result": json.dumps(rows), **counters})

    write_csv(args.out, records)

    print(f"machine: {platform.node()} {platform.machine()}, python {platform.python_version()}")
    print(f"{'query':18} {'median s':>9} {'row groups':>11} {'scanned':>8} {'splits':>7} {'bytes from storage':>19}  result")
    for label, _ in QUERIES:
        runs = [r for r in records if r["query"] == label]
        last = runs[-1]
        scanned = last["row_groups_total"] - last["row_groups_pruned_by_stats"]
        print(f"{label:18} {statistics.median(r['wall_seconds'] for r in runs):9.3f} {last['row_groups_total']:11d} "
              f"{scanned:8d} {last['splits']:7d} {last['physical_input_bytes']:19,d}  {last['result']}")
    print(f"raw results: {args.out}")


if __name__ == "__main__":
    main()
