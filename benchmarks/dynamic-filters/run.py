#!/usr/bin/env python3
"""Bytes the join-heavy TPC-H queries read through nsc, with Trino's small and large dynamic filters.

Trino collects a join's dynamic filter as a set of values only up to its limits; past them it
keeps a range (min, max) or nothing, and then neither the coordinator's row-group pruning nor a
storage scan can drop much. Trino's session property `enable_large_dynamic_filters` switches
from its small limits to its large ones. For each query, setting and pushdown mode this runs the
query once on the demo's nsc.tpch and records what crossed from the storage nodes (Trino's
physical input bytes), the row groups the dynamic filters pruned, the rows storage scans returned,
and the wall time (one run: a hint, not a measurement of speed); the rows of every run must equal
the first run's. Writes a CSV with the machine header.

    ./nsc demo --scale 1
    python3 benchmarks/dynamic-filters/run.py --out benchmarks/dynamic-filters/results/sf1.csv

Standard library only.
"""
import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import machine  # noqa: E402
from trino_client import connector_counters, data_size_bytes, normalized, request, run_query  # noqa: E402

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
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    load_at_start = machine.load_average()

    records = []
    for query in args.queries.split(","):
        with open(os.path.join(QUERIES, query + ".sql")) as file:
            sql = file.read().strip().rstrip(";")
        first_rows = None
        for large in ("false", "true"):
            for mode in args.modes.split(","):
                session = f"nsc.pushdown={mode},enable_large_dynamic_filters={large}"
                query_id, rows, wall = run_query(args.server, args.user, sql, session=session, catalog="nsc", schema="tpch")
                rows = normalized(rows)
                if first_rows is None:
                    first_rows = rows
                elif sorted(map(repr, rows)) != sorted(map(repr, first_rows)):
                    raise SystemExit(f"{query} with {session} answered other rows than its first run")
                info = request(f"{args.server}/v1/query/{query_id}", args.user)
                counters = connector_counters(info, SPLIT_METRICS, CONNECTOR_METRICS)
                records.append({"query": query, "large_dynamic_filters": large, "mode": mode,
                                "physical_input_bytes": data_size_bytes(info["queryStats"]["physicalInputDataSize"]),
                                **counters, "wall_seconds": round(wall, 3)})
                print(records[-1], flush=True)

    header = machine.header_lines("python3 benchmarks/dynamic-filters/run.py " + " ".join(sys.argv[1:]), load_at_start)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", newline="") as out:
        out.write("\n".join(header) + "\n")
        writer = csv.DictWriter(out, fieldnames=list(records[0].keys()))
        writer.writeheader()
        writer.writerows(records)
    print("\n".join(header))
    print(f"raw results: {args.out}")


if __name__ == "__main__":
    main()
