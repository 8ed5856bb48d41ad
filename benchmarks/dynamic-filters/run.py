#!/usr/bin/env python3
"""Bytes the join-heavy TPC-H queries read through nsc, with Trino's small and large dynamic filters.

Trino collects a join's dynamic filter as a set of values only up to its limits; past them it
keeps a range (min, max) or nothing, and then neither the coordinator's row-group pruning nor a
storage scan can drop much. Trino's session property `enable_large_dynamic_filters` switches
from its small limits to its large ones. For each query, setting and pushdown mode this runs the
query once on the demo's nsc.tpch and records what crossed from the storage nodes (Trino's
physical input bytes), the row groups the dynamic filters pruned, the rows storage scans returned,
and the wall time (one run: a hint, not a measurement of speed); the rows of every run must equal
the first run's. With --waits, each run also sets how long split planning waits for the join's
dynamic filter (nsc.dynamic_filtering_wait_timeout), in the order given. Writes a CSV with the
machine header.

    ./nsc demo --scale 1
    python3 benchmarks/dynamic-filters/run.py --out benchmarks/dynamic-filters/results/sf1.csv
    # on a freshly started demo: Q17's first (cold) run against the next ones, and the wait
    python3 benchmarks/dynamic-filters/run.py --queries q17 --modes auto --large false \
        --waits 1s,10s,1s,10s --out benchmarks/dynamic-filters/results/q17-wait.csv

Standard library only.
"""
import argparse
import itertools
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import machine  # noqa: E402
from trino_client import connector_counters, data_size_bytes, normalized, request, run_query, write_csv  # noqa: E402

HOME = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUERIES = os.path.join(HOME, "trino-nsc", "src", "test", "resources", "tpch")
SPLIT_METRICS = ("row_groups_total", "row_groups_pruned_by_stats", "row_groups_pruned_by_dynamic_filter", "splits_raw", "splits_filter")
CONNECTOR_METRICS = ("storage_rows_returned",)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default="http://127.0.0.1:8080")
    parser.add_argument("--user", default="benchmark")
    parser.add_argument("--queries", default="q03,q17,q18,q21")
    parser.add_argument("--modes", default="auto,filter,raw")
    parser.add_argument("--large", default="false,true", help="values of enable_large_dynamic_filters, in order")
    parser.add_argument("--waits", default="", help="values of nsc.dynamic_filtering_wait_timeout, in order; empty: the catalog's")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    load_at_start = machine.load_average()

    records = []
    for query in args.queries.split(","):
        with open(os.path.join(QUERIES, query + ".sql")) as file:
            sql = file.read().strip().rstrip(";")
        first_rows = None
        for large, mode, wait in itertools.product(args.large.split(","), args.modes.split(","), args.waits.split(",")):
            session = f"nsc.pushdown={mode},enable_large_dynamic_filters={large}" + (f",nsc.dynamic_filtering_wait_timeout={wait}" if wait else "")
            query_id, rows, wall = run_query(args.server, args.user, sql, session=session, catalog="nsc", schema="tpch")
            rows = normalized(rows)
            if first_rows is None:
                first_rows = rows
            elif sorted(map(repr, rows)) != sorted(map(repr, first_rows)):
                raise SystemExit(f"{query} with {session} answered other rows than its first run")
            info = request(f"{args.server}/v1/query/{query_id}", args.user)
            counters = connector_counters(info, SPLIT_METRICS, CONNECTOR_METRICS)
            records.append({"query": query, "large_dynamic_filters": large, "mode": mode, "wait": wait or "default",
                            "physical_input_bytes": data_size_bytes(info["queryStats"]["physicalInputDataSize"]),
                            **counters, "wall_seconds": round(wall, 3)})
            print(records[-1], flush=True)

    header = machine.header_lines("python3 benchmarks/dynamic-filters/run.py " + " ".join(sys.argv[1:]), load_at_start)
    write_csv(args.out, records, header)
    print("\n".join(header))
    print(f"raw results: {args.out}")


if __name__ == "__main__":
    main()
