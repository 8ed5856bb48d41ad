#!/usr/bin/env python3
"""MERGE into TPC-H orders on a running nsc cluster: rows/s, peak memory, files rewritten.

Each run copies nsc.tpch.orders (sorted by o_orderkey, as the loader writes it) into
nsc.bench_merge.orders, then merges into it a source of about 1M rows built from Trino's own
tpch.sf<scale>.orders: two of every three orders matched (their comment and price updated), and
for every tenth source row a new order inserted under a key no order has. It records the
statement's wall time, its rows, the query's peak memory as Trino accounted it, the metadata
service's counters (files rewritten, rows deleted, files committed) and the table's files and
rows before and after, then checks the table's row count and sum of prices against the same
arithmetic over tpch.sf<scale>.orders. Writes a CSV (with the machine header) and prints a summary.

    ./nsc demo --scale 1
    python3 benchmarks/merge/run.py --repeat 3 --out benchmarks/merge/results/sf1-merge.csv

Standard library only.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import machine  # noqa: E402
from nsc_metrics import service_metrics  # noqa: E402
from trino_client import data_size_bytes, request, run_query, write_csv  # noqa: E402

HOME = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE = "nsc.bench_merge.orders"
METADATA_COUNTERS = ("files_rewritten", "files_removed", "rows_deleted", "files_committed", "deletes")
# a key no TPC-H order has at any scale below 1000: inserted rows stand apart from updated ones
NEW_KEY_OFFSET = 10_000_000_000


def source(scale):
    return f"""
        SELECT CASE WHEN o_orderkey % 10 = 1 THEN o_orderkey + {NEW_KEY_OFFSET} ELSE o_orderkey END AS o_orderkey,
               o_custkey, o_orderstatus, o_totalprice, o_orderdate, o_orderpriority, o_clerk, o_shippriority, o_comment
        FROM tpch.sf{scale}.orders
        WHERE o_orderkey % 3 <> 0"""


def merge_statement(scale):
    return f"""
        MERGE INTO {TABLE} t USING ({source(scale)}) s ON t.o_orderkey = s.o_orderkey
        WHEN MATCHED THEN UPDATE SET o_comment = 'merged', o_totalprice = s.o_totalprice * 2
        WHEN NOT MATCHED THEN INSERT VALUES (s.o_orderkey, s.o_custkey, s.o_orderstatus, s.o_totalprice,
            s.o_orderdate, s.o_orderpriority, s.o_clerk, s.o_shippriority, s.o_comment)"""


def expected(server, user, scale):
    """Rows and sum of prices the table must hold after the MERGE, from Trino's tpch catalog."""
    sql = f"""
        SELECT count(*) + count_if(o_orderkey % 3 <> 0 AND o_orderkey % 10 = 1),
               sum(CASE WHEN o_orderkey % 3 <> 0 AND o_orderkey % 10 <> 1 THEN o_totalprice * 2 ELSE o_totalprice END)
                   + sum(CASE WHEN o_orderkey % 3 <> 0 AND o_orderkey % 10 = 1 THEN o_totalprice ELSE 0 END)
        FROM tpch.sf{scale}.orders"""
    return run_query(server, user, sql)[1][0]


def table_shape(server, user):
    files, row_groups, rows = run_query(server, user, f'SELECT count(*), sum(row_groups), sum(row_count) FROM nsc.bench_merge."orders$files"')[1][0]
    return {"files": files, "row_groups": row_groups, "rows": rows}


def metadata_counters(port):
    metrics = service_metrics(os.environ.get("NSC_VAR", os.path.join(HOME, "var")), port)
    return {name: metrics.get(name, 0) for name in METADATA_COUNTERS}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default="http://127.0.0.1:8080")
    parser.add_argument("--user", default="benchmark")
    parser.add_argument("--scale", default="1", help="TPC-H scale of the demo's nsc.tpch (and of tpch.sf<scale>)")
    parser.add_argument("--metadata-http-port", type=int, default=7071)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    load_at_start = machine.load_average()

    run_query(args.server, args.user, "CREATE SCHEMA IF NOT EXISTS nsc.bench_merge")
    source_rows = run_query(args.server, args.user, f"SELECT count(*) FROM ({source(args.scale)})")[1][0][0]
    want_rows, want_price = expected(args.server, args.user, args.scale)
    records = []
    for attempt in range(1, args.repeat + 1):
        run_query(args.server, args.user, f"DROP TABLE IF EXISTS {TABLE}")
        run_query(args.server, args.user, f"CREATE TABLE {TABLE} WITH (sorted_by = ARRAY['o_orderkey']) AS SELECT * FROM nsc.tpch.orders")
        before = table_shape(args.server, args.user)
        counters_before = metadata_counters(args.metadata_http_port)
        started = time.monotonic()
        query_id, result, _ = run_query(args.server, args.user, merge_statement(args.scale))
        wall = time.monotonic() - started
        stats = request(f"{args.server}/v1/query/{query_id}", args.user)["queryStats"]
        counters = {name: value - counters_before[name] for name, value in metadata_counters(args.metadata_http_port).items()}
        after = table_shape(args.server, args.user)
        rows, price = run_query(args.server, args.user, f"SELECT count(*), sum(o_totalprice) FROM {TABLE}")[1][0]
        if rows != want_rows or abs(price - want_price) > 1e-6 * abs(want_price):
            raise SystemExit(f"run {attempt}: the table holds {rows} rows priced {price}, expected {want_rows} and {want_price}")
        merged = result[0][0]
        records.append({"run": attempt, "source_rows": source_rows, "rows_merged": merged, "wall_seconds": round(wall, 2),
                        "rows_per_second": round(merged / wall),
                        "peak_user_memory_bytes": data_size_bytes(stats["peakUserMemoryReservation"]),
                        "peak_total_memory_bytes": data_size_bytes(stats["peakTotalMemoryReservation"]),
                        "files_before": before["files"], "row_groups_before": before["row_groups"],
                        "files_after": after["files"], "row_groups_after": after["row_groups"], "rows_after": after["rows"],
                        **{f"metadata_{name}": value for name, value in counters.items()}})
        print(records[-1], flush=True)
    run_query(args.server, args.user, f"DROP TABLE {TABLE}")

    header = machine.header_lines("python3 benchmarks/merge/run.py " + " ".join(sys.argv[1:]), load_at_start)
    write_csv(args.out, records, header)
    walls = sorted(record["wall_seconds"] for record in records)
    print("\n".join(header))
    print(f"median wall {walls[len(walls) // 2]} s over {len(walls)} runs; raw results: {args.out}")


if __name__ == "__main__":
    main()
