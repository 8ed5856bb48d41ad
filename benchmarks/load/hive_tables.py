#!/usr/bin/env python3
"""Registers the demo's TPC-H Parquet files (NSC_VAR/tpch/sf<scale>/<table>/) as external tables
of a Hive catalog on the same Trino, so a workload runs over nsc and over Hive on the same files.

The Hive catalog reads the local file system with a file metastore; benchmarks/load/README.md
says how the demo's Trino gets it. Each table's columns are nsc.tpch's, as DESCRIBE shows them.

    python3 benchmarks/load/hive_tables.py --scale 1
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from trino_client import run_query  # noqa: E402

TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default="http://127.0.0.1:8080")
    parser.add_argument("--scale", default="1", help="the demo's TPC-H scale [1]")
    parser.add_argument("--catalog", default="hive")
    args = parser.parse_args()
    server, user = args.server, "load-setup"
    run_query(server, user, f"CREATE SCHEMA IF NOT EXISTS {args.catalog}.tpch")
    for table in TABLES:
        _, columns, _ = run_query(server, user, f"DESCRIBE nsc.tpch.{table}")
        definition = ", ".join(f"{name} {kind}" for name, kind, *_ in columns)
        run_query(server, user, f"DROP TABLE IF EXISTS {args.catalog}.tpch.{table}")
        run_query(server, user,
                  f"CREATE TABLE {args.catalog}.tpch.{table} ({definition}) "
                  f"WITH (format = 'PARQUET', external_location = 'local:///tpch/sf{args.scale}/{table}')")
        _, rows, _ = run_query(server, user, f"SELECT count(*) FROM {args.catalog}.tpch.{table}")
        print(f"{args.catalog}.tpch.{table}: {rows[0][0]:,} rows")


if __name__ == "__main__":
    main()
