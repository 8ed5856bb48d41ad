#!/usr/bin/env python3
"""Near-storage pushdown on a running nsc cluster: each pushdown mode at several selectivities.

For lineitem, a filter on the sorted column (l_shipdate) and on an unsorted one (l_partkey) at
0%, 0.1%, 1%, 10%, 50% and 100% of the rows, under an aggregation Trino computes, so that the
scan outputs two columns and the filter column is needed only for filtering:

    SELECT count(*), sum(l_extendedprice * (1 - l_discount)) FROM nsc.tpch.lineitem WHERE <filter>

Each query runs in every mode (session property nsc.pushdown = none | raw | filter | auto)
--repeat times after one warm-up. Per run it records the client's wall time, the bytes Trino
received from storage nodes (physical input), the storage nodes' scan CPU and their rows
scanned/returned and bytes read from disk (connector metrics), Trino's total CPU time, and the
split counts per mode. Writes the raw CSV and prints medians, plus the storage node's scan rate
(rows and Parquet MB per CPU second) in filter mode.

    ./nsc demo --scale 1
    python3 benchmarks/pushdown/run.py --repeat 5 --out benchmarks/pushdown/results/sf1.csv

Standard library only.
"""
import argparse
import json
import os
import platform
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from trino_client import connector_counters, data_size_bytes, duration_seconds, request, run_query, write_csv  # noqa: E402

MODES = ["none", "raw", "filter", "auto"]
SELECTIVITIES = [0.0, 0.001, 0.01, 0.1, 0.5, 1.0]
# TPC-H: l_partkey is uniform over 1..200,000 * scale; ship dates span 1992-01-02..1998-12-01
SHIPDATE_DAYS = 2526
PARTKEYS_PER_SCALE = 200_000
SPLIT_METRICS = ["row_groups_total", "row_groups_pruned_by_stats", "row_groups_pruned_by_top_n", "splits_raw", "splits_filter"]
CONNECTOR_METRICS = ["storage_cpu_nanos", "storage_rows_scanned", "storage_rows_returned", "storage_bytes_read_from_disk", "storage_bytes_received"]


# Beyond filters: an aggregation storage nodes compute (TPC-H Q1's shape over plain columns)
# and a top-N on an unsorted column; selectivity is not theirs to vary (recorded as -1).
OTHER_QUERIES = [
    ("q1_shape", "SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice), avg(l_discount), count(*) "
                 "FROM nsc.tpch.lineitem WHERE l_shipdate <= DATE '1998-09-02' GROUP BY l_returnflag, l_linestatus"),
    ("top_n", "SELECT l_partkey, l_orderkey, l_linenumber FROM nsc.tpch.lineitem ORDER BY l_partkey DESC, l_orderkey, l_linenumber LIMIT 10"),
]


def queries(scale):
    result = []
    for selectivity in SELECTIVITIES:
        days = round(SHIPDATE_DAYS * selectivity) + (1 if selectivity == 1.0 else 0)
        result.append(("sorted", selectivity, f"l_shipdate < DATE '1992-01-02' + INTERVAL '{days}' DAY"))
        keys = round(PARTKEYS_PER_SCALE * scale * selectivity)
        result.append(("unsorted", selectivity, f"l_partkey <= {keys}"))
    filters = [(column, selectivity, "SELECT count(*), sum(l_extendedprice * (1 - l_discount)) FROM nsc.tpch.lineitem WHERE " + predicate)
               for column, selectivity, predicate in result]
    return filters + [(label, -1, sql) for label, sql in OTHER_QUERIES]


def normalized(rows):
    """Rows in a comparable form: doubles summed in another order differ in their last digits."""
    def value(field):
        return float("%.9g" % field) if isinstance(field, float) else field
    return sorted(json.dumps([value(field) for field in row]) for row in rows)












def query_counters(server, user, query_id):
    info = request(f"{server}/v1/query/{query_id}", user)
    stats = info["queryStats"]
    counters = {"physical_input_bytes": data_size_bytes(stats["physicalInputDataSize"]),
                "trino_cpu_seconds": round(duration_seconds(stats["totalCpuTime"]), 3)}
    counters.update(connector_counters(info, SPLIT_METRICS, CONNECTOR_METRICS))
    counters["storage_cpu_seconds"] = round(counters.pop("storage_cpu_nanos") / 1e9, 3)
    return counters


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default="http://127.0.0.1:8080")
    parser.add_argument("--user", default="benchmark")
    parser.add_argument("--scale", type=float, default=1.0, help="TPC-H scale the demo loaded")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", required=True, help="CSV file for the raw results")
    args = parser.parse_args()

    records = []
    for column, selectivity, sql in queries(args.scale):
        expected = None
        for mode in MODES:
            run_query(args.server, args.user, sql, session=f"nsc.pushdown={mode}")  # warm-up: footer caches, JIT
            for attempt in range(1, args.repeat + 1):
                query_id, rows, wall = run_query(args.server, args.user, sql, session=f"nsc.pushdown={mode}")
                if expected is None:
                    expected = normalized(rows)
                elif normalized(rows) != expected:
                    raise RuntimeError(f"{mode} returned {rows}, other modes {expected}: {sql}")
                records.append({"query": column, "selectivity": selectivity, "mode": mode, "run": attempt,
                                "wall_seconds": round(wall, 3), "rows": rows[0][0] if column in ("sorted", "unsorted") else len(rows),
                                **query_counters(args.server, args.user, query_id)})

    write_csv(args.out, records)

    print(f"machine: {platform.node()} {platform.machine()} ({os.cpu_count()} cpus), python {platform.python_version()}")
    print(f"{'query':9} {'sel':>6} {'mode':7} {'median s':>9} {'bytes from storage':>19} {'storage cpu s':>14} {'trino cpu s':>12} {'splits raw/filter':>18}")
    for column, selectivity, _ in queries(args.scale):
        for mode in MODES:
            runs = [r for r in records if r["query"] == column and r["selectivity"] == selectivity and r["mode"] == mode]
            median = lambda key: statistics.median(r[key] for r in runs)
            last = runs[-1]
            print(f"{column:9} {(f'{selectivity:.1%}' if selectivity >= 0 else '-'):>6} {mode:7} {median('wall_seconds'):9.3f} {int(median('physical_input_bytes')):19,d} "
                  f"{median('storage_cpu_seconds'):14.3f} {median('trino_cpu_seconds'):12.3f} {last['splits_raw']:>8}/{last['splits_filter']:<9}")
    # the filter queries only: the aggregation's and top-N's CPU is not the scan's
    scans = [r for r in records if r["mode"] == "filter" and r["query"] in ("sorted", "unsorted") and r["storage_cpu_seconds"] > 0]
    cpu = sum(r["storage_cpu_seconds"] for r in scans)
    if cpu > 0:
        print(f"storage scan rate in filter mode (all filter runs): {sum(r['storage_rows_scanned'] for r in scans) / cpu:,.0f} rows per CPU second, "
              f"{sum(r['storage_bytes_read_from_disk'] for r in scans) / cpu / 1e6:,.1f} MB of Parquet read per CPU second")
    print(f"raw results: {args.out}")


if __name__ == "__main__":
    main()
