#!/usr/bin/env python3
"""CTAS throughput on a running nsc cluster: rows/s and MB/s written, bytes per replica, memory.

For each variant, runs `CREATE TABLE nsc.bench.<t> WITH (...) AS SELECT * FROM <source>`
through Trino's REST API, and records the wall time, the rows written, the Parquet bytes of the
table's files (`./nsc info`), the bytes the storage nodes received (their `bytes_uploaded`
counters, all replicas), the query's peak memory as Trino accounted it (page sinks included) and
what it spilled, and the Trino server's peak resident memory (VmHWM) after the statement. Drops
the table after each run. Writes a CSV and prints a summary.

    ./nsc demo --scale 1
    python3 benchmarks/write-path/run.py --repeat 2 --out benchmarks/write-path/results/sf1-ctas.csv
    python3 benchmarks/write-path/run.py --source tpch.sf10.lineitem --variants sorted --repeat 1 \
        --out benchmarks/write-path/results/sf10-ctas.csv

The Trino server's peak is that of its whole life: restart the cluster (`./nsc stop; ./nsc start`)
before a run whose peak should be the statement's own.

Standard library only.
"""
import argparse
import os
import platform
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from nsc_metrics import service_metrics  # noqa: E402
from trino_client import data_size_bytes, request, run_query, write_csv  # noqa: E402

VARIANTS = {
    "sorted": "sorted_by = ARRAY['l_shipdate'], replication = 2",
    "unsorted": "replication = 2",
}
HOME = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def storage_uploaded(ports):
    nsc_var = os.environ.get("NSC_VAR", os.path.join(HOME, "var"))
    return sum(service_metrics(nsc_var, port)["bytes_uploaded"] for port in ports)


def trino_peak_resident_bytes():
    """VmHWM of the Trino server ./nsc started, or None when it cannot be read (not Linux, not ./nsc's)."""
    state = os.path.join(os.environ.get("NSC_VAR", os.path.join(HOME, "var")), "cluster", "state")
    try:
        with open(os.path.join(state, "trino.pid")) as file:
            pid = file.read().strip()
        with open(f"/proc/{pid}/status") as file:
            for line in file:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def query_memory(server, user, query_id):
    stats = request(f"{server}/v1/query/{query_id}", user)["queryStats"]
    return {"peak_user_memory_bytes": data_size_bytes(stats["peakUserMemoryReservation"]),
            "peak_total_memory_bytes": data_size_bytes(stats["peakTotalMemoryReservation"]),
            "spilled_bytes": data_size_bytes(stats.get("spilledDataSize", "0B"))}


def table_bytes(table):
    info = subprocess.run([os.path.join(HOME, "nsc"), "info", table], capture_output=True, text=True, check=True).stdout
    match = re.search(r"(\d+) files, ([\d,]+) rows, ([\d,]+) bytes, (\d+) row groups", info)
    files, rows, size, row_groups = match.groups()
    return int(files), int(rows.replace(",", "")), int(size.replace(",", "")), int(row_groups)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default="http://127.0.0.1:8080")
    parser.add_argument("--user", default="benchmark")
    parser.add_argument("--storage-http-ports", default="7081,7091,7101")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--source", default="tpch.sf1.lineitem", help="table the CTAS selects from")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated: " + ", ".join(VARIANTS))
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    ports = [int(port) for port in args.storage_http_ports.split(",")]
    variants = [(label, VARIANTS[label]) for label in args.variants.split(",") if label]

    run_query(args.server, args.user, "CREATE SCHEMA IF NOT EXISTS nsc.bench")
    records = []
    for label, properties in variants:
        for attempt in range(1, args.repeat + 1):
            table = f"nsc.bench.lineitem_{label}"
            run_query(args.server, args.user, f"DROP TABLE IF EXISTS {table}")
            uploaded_before = storage_uploaded(ports)
            started = time.monotonic()
            query_id, result, _ = run_query(args.server, args.user, f"CREATE TABLE {table} WITH ({properties}) AS SELECT * FROM {args.source}")
            wall = time.monotonic() - started
            rows = result[0][0]
            memory = query_memory(args.server, args.user, query_id)
            uploaded = storage_uploaded(ports) - uploaded_before
            files, table_rows, size, row_groups = table_bytes(table.removeprefix("nsc."))
            assert table_rows == rows, (table_rows, rows)
            records.append({"variant": label, "run": attempt, "rows": rows, "wall_seconds": round(wall, 2),
                            "rows_per_second": round(rows / wall), "files": files, "row_groups": row_groups,
                            "parquet_bytes": size, "bytes_received_by_storage": uploaded,
                            "parquet_mb_per_second": round(size / wall / 1e6, 2),
                            "bytes_per_replica_over_file_size": round(uploaded / 2 / size, 4),
                            **memory, "trino_peak_resident_bytes": trino_peak_resident_bytes()})
            run_query(args.server, args.user, f"DROP TABLE {table}")

    write_csv(args.out, records)
    print(f"machine: {platform.node()} {platform.machine()} ({os.cpu_count()} cpus); source {args.source}")
    for record in records:
        print(record)
    print(f"raw results: {args.out}")


if __name__ == "__main__":
    main()
