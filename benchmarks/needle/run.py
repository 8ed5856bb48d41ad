#!/usr/bin/env python3
"""Needle pruning: row groups scanned for point lookups on an unsorted column, without and with
the row groups' Bloom filters.

Copies lineitem twice with CTAS, both sorted by l_shipdate in row groups of 100,000 rows: once
as it is (the baseline: min/max of l_orderkey span nearly every order key in every row group),
once with `bloom_filter_columns = ARRAY['l_orderkey']`. Then runs point lookups on order keys
drawn with a fixed seed, an IN list, and a key that exists nowhere, against both copies, and
records per run the row groups the coordinator kept (total minus those pruned by min/max and by
the filters), the splits, the bytes the storage nodes read from disk and the rows they scanned,
the bytes Trino received from them, and the wall time.
Every lookup's rows are compared between the two copies. Writes a CSV and prints a summary.

    ./nsc demo --scale 1
    python3 benchmarks/needle/run.py --server http://127.0.0.1:8080 --out benchmarks/needle/results/sf1.csv
    ./nsc info needle.lineitem_bloom     # filter bytes per column chunk

Standard library only.
"""
import argparse
import json
import os
import platform
import random
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from trino_client import connector_counters, data_size_bytes, request, run_query, write_csv  # noqa: E402

SOURCE = "nsc.tpch.lineitem"
TABLES = {
    "plain": "nsc.needle.lineitem_plain",
    "bloom": "nsc.needle.lineitem_bloom",
}
PROPERTIES = {
    "plain": "sorted_by = ARRAY['l_shipdate'], row_group_size = '100000'",
    "bloom": "sorted_by = ARRAY['l_shipdate'], row_group_size = '100000', bloom_filter_columns = ARRAY['l_orderkey']",
}
SPLIT_METRICS = ["row_groups_total", "row_groups_pruned_by_stats", "row_groups_pruned_by_filter", "splits"]
# what the storage nodes did for the query, as the page sources report it
CONNECTOR_METRICS = ["storage_bytes_read_from_disk", "storage_rows_scanned"]


def query_counters(server, user, query_id):
    info = request(f"{server}/v1/query/{query_id}", user)
    counters = {"physical_input_bytes": data_size_bytes(info["queryStats"]["physicalInputDataSize"])}
    counters.update(connector_counters(info, SPLIT_METRICS, CONNECTOR_METRICS))
    counters["row_groups_scanned"] = (counters["row_groups_total"] - counters["row_groups_pruned_by_stats"]
                                      - counters["row_groups_pruned_by_filter"])
    return counters


def lookups(server, user, count, seed):
    # order keys that exist: sampled from the table itself, with a fixed seed so runs compare
    _, rows, _ = run_query(server, user, f"SELECT max(l_orderkey) FROM {SOURCE}")
    max_key = rows[0][0]
    rng = random.Random(seed)
    keys = []
    while len(keys) < count:
        key = rng.randint(1, max_key)
        _, found, _ = run_query(server, user, f"SELECT count(*) FROM {SOURCE} WHERE l_orderkey = {key}")
        if found[0][0] > 0:
            keys.append(key)
    queries = [(f"point_{key}", f"SELECT l_linenumber, l_partkey, l_quantity, l_shipdate FROM {{table}} WHERE l_orderkey = {key} ORDER BY l_linenumber")
               for key in keys]
    in_list = ", ".join(str(key) for key in keys[:5])
    queries.append(("in_5_keys", f"SELECT l_orderkey, l_linenumber FROM {{table}} WHERE l_orderkey IN ({in_list}) ORDER BY 1, 2"))
    # TPC-H order keys skip 24 of every 32 values: 8 + 32k is in no row group
    queries.append(("absent_key", "SELECT count(*) FROM {table} WHERE l_orderkey = 3000008"))
    return queries


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default="http://127.0.0.1:8080")
    parser.add_argument("--user", default="benchmark")
    parser.add_argument("--lookups", type=int, default=10, help="point lookups on distinct order keys")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20261125)
    parser.add_argument("--keep-tables", action="store_true", help="keep the copies (default: drop them at the end)")
    parser.add_argument("--out", required=True, help="CSV file for the raw results")
    args = parser.parse_args()

    run_query(args.server, args.user, "CREATE SCHEMA IF NOT EXISTS nsc.needle")
    for name, table in TABLES.items():
        run_query(args.server, args.user, f"DROP TABLE IF EXISTS {table}")
        _, _, seconds = run_query(args.server, args.user, f"CREATE TABLE {table} WITH ({PROPERTIES[name]}) AS SELECT * FROM {SOURCE}")
        print(f"created {table} in {seconds:.1f} s", flush=True)

    records = []
    failures = []
    for label, template in lookups(args.server, args.user, args.lookups, args.seed):
        answers = {}
        for name, table in TABLES.items():
            sql = template.format(table=table)
            run_query(args.server, args.user, sql)  # warm-up: footer cache, JIT
            for attempt in range(1, args.repeat + 1):
                query_id, rows, wall = run_query(args.server, args.user, sql)
                answers[name] = rows
                records.append({"query": label, "table": name, "run": attempt, "wall_seconds": round(wall, 3),
                                "result_rows": len(rows), **query_counters(args.server, args.user, query_id)})
        if json.dumps(answers["plain"]) != json.dumps(answers["bloom"]):
            failures.append(label)

    write_csv(args.out, records)
    if not args.keep_tables:
        for table in TABLES.values():
            run_query(args.server, args.user, f"DROP TABLE {table}")

    print(f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cpus, python {platform.python_version()}")
    print(f"{'query':18} {'table':6} {'median s':>9} {'row groups':>11} {'by min/max':>11} {'by filter':>10} "
          f"{'scanned':>8} {'disk bytes':>12} {'rows scanned':>13} {'bytes to Trino':>15} {'rows':>5}")
    for label in dict.fromkeys(r["query"] for r in records):
        for name in TABLES:
            runs = [r for r in records if r["query"] == label and r["table"] == name]
            last = runs[-1]
            print(f"{label:18} {name:6} {statistics.median(r['wall_seconds'] for r in runs):9.3f} "
                  f"{last['row_groups_total']:11d} {last['row_groups_pruned_by_stats']:11d} "
                  f"{last['row_groups_pruned_by_filter']:10d} {last['row_groups_scanned']:8d} "
                  f"{last['storage_bytes_read_from_disk']:12,d} {last['storage_rows_scanned']:13,d} "
                  f"{last['physical_input_bytes']:15,d} {last['result_rows']:5d}")
    for name in TABLES:
        points = [r for r in records if r["table"] == name and r["query"].startswith("point_") and r["run"] == 1]
        print(f"point lookups, {name}: mean row groups scanned {statistics.mean(r['row_groups_scanned'] for r in points):.1f} "
              f"of {statistics.mean(r['row_groups_total'] for r in points):.0f}, mean bytes read from disk "
              f"{statistics.mean(r['storage_bytes_read_from_disk'] for r in points):,.0f}, mean rows scanned "
              f"{statistics.mean(r['storage_rows_scanned'] for r in points):,.0f}, median wall "
              f"{statistics.median(r['wall_seconds'] for r in points):.3f} s")
    print(f"raw results: {args.out}")
    if failures:
        print(f"RESULT MISMATCH between the copies: {', '.join(failures)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
