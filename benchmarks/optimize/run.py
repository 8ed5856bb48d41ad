#!/usr/bin/env python3
"""Compaction (ALTER TABLE ... EXECUTE optimize) after many single-row INSERTs, on a running cluster.

Creates nsc.bench_optimize.events (sorted by k), commits --inserts single-row INSERTs into it (one
file each), then measures, before and after one `ALTER TABLE ... EXECUTE optimize`: the table's
files and row groups (from "$files"), the planning time Trino reports for a full scan (its
queryStats.planningTime), the scan's wall time and the coordinator's split generation (files
listed, splits), each the median of --repeat runs after one warm-up; and the optimize's own wall
time. The scan's answer must be the same before and after. Writes a CSV (with the machine header)
and prints a summary.

    ./nsc demo --scale 0.01
    python3 benchmarks/optimize/run.py --inserts 1000 --repeat 5 --out benchmarks/optimize/results/1000-inserts.csv

Standard library only.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import machine  # noqa: E402
from trino_client import connector_counters, duration_seconds, request, run_query, write_csv  # noqa: E402

SCHEMA = "nsc.bench_optimize"
TABLE = SCHEMA + ".events"
# an expression over every row of every column: no aggregate the compact stats can answer
SCAN = f"SELECT count(*), sum(k * 2), sum(length(v)), sum(d) FROM {TABLE}"
SPLIT_METRICS = ("files_listed", "splits", "row_groups_total")


def shape(server, user):
    files, row_groups, rows = run_query(server, user, f'SELECT count(*), sum(row_groups), sum(row_count) FROM {SCHEMA}."events$files"')[1][0]
    return {"files": files, "row_groups": row_groups, "rows": rows}


def scans(server, user, repeat):
    """The scan's answer, and the medians of its planning time, wall time and split counters."""
    run_query(server, user, SCAN)
    planning, wall, answers, counters = [], [], [], []
    for _ in range(repeat):
        query_id, rows, seconds = run_query(server, user, SCAN)
        info = request(f"{server}/v1/query/{query_id}", user)
        planning.append(duration_seconds(info["queryStats"]["planningTime"]))
        wall.append(seconds)
        answers.append(rows)
        counters.append(connector_counters(info, split_metrics=SPLIT_METRICS))
    if any(answer != answers[0] for answer in answers):
        raise SystemExit(f"the scan answered differently across runs: {answers}")
    return answers[0], {
        "planning_ms": round(statistics.median(planning) * 1000, 1),
        "scan_wall_ms": round(statistics.median(wall) * 1000, 1),
        **{name: counters[0][name] for name in SPLIT_METRICS},
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default="http://127.0.0.1:8080")
    parser.add_argument("--user", default="benchmark")
    parser.add_argument("--inserts", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    load_at_start = machine.load_average()

    run_query(args.server, args.user, f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
    run_query(args.server, args.user, f"DROP TABLE IF EXISTS {TABLE}")
    run_query(args.server, args.user, f"CREATE TABLE {TABLE} (k bigint, v varchar, d double) WITH (sorted_by = ARRAY['k'])")
    started = time.monotonic()
    for i in range(args.inserts):
        # in descending k: every file holds one row, none in the order the table is sorted by
        k = args.inserts - i
        run_query(args.server, args.user, f"INSERT INTO {TABLE} VALUES ({k}, 'event {k}', {k}.5)")
    inserts_seconds = time.monotonic() - started

    before = shape(args.server, args.user)
    answer_before, scan_before = scans(args.server, args.user, args.repeat)
    started = time.monotonic()
    run_query(args.server, args.user, f"ALTER TABLE {TABLE} EXECUTE optimize")
    optimize_seconds = time.monotonic() - started
    after = shape(args.server, args.user)
    answer_after, scan_after = scans(args.server, args.user, args.repeat)
    if answer_after != answer_before or after["rows"] != before["rows"]:
        raise SystemExit(f"optimize changed the answer: {answer_before} -> {answer_after}, rows {before['rows']} -> {after['rows']}")
    history = run_query(args.server, args.user, f'SELECT operation FROM {SCHEMA}."events$history" ORDER BY version DESC LIMIT 1')[1][0][0]

    records = [
        {"when": "before", **before, **scan_before, "statement_seconds": round(inserts_seconds, 1), "statement": f"{args.inserts} single-row INSERTs"},
        {"when": "after", **after, **scan_after, "statement_seconds": round(optimize_seconds, 2), "statement": f"ALTER TABLE ... EXECUTE optimize ({history})"},
    ]
    run_query(args.server, args.user, f"DROP TABLE {TABLE}")
    header = machine.header_lines("python3 benchmarks/optimize/run.py " + " ".join(sys.argv[1:]), load_at_start)
    write_csv(args.out, records, header)
    print("\n".join(header))
    for record in records:
        print(record)
    print(f"raw results: {args.out}")


if __name__ == "__main__":
    main()
