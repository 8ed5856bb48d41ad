"""Trino's REST protocol for the benchmark: statements with their columns, and a finished query's
statistics. Standard library only (the CLI's JVM start would cost seconds per query).
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from trino_client import connector_counters, data_size_bytes, duration_seconds, request  # noqa: E402

# nsc's counters of a query: the connector's split-generation and page-source metrics
NSC_SPLIT_METRICS = ["row_groups_total", "row_groups_pruned_by_stats", "row_groups_pruned_by_dynamic_filter", "splits_raw", "splits_filter"]
NSC_CONNECTOR_METRICS = ["storage_cpu_nanos", "storage_rows_scanned", "storage_rows_returned", "storage_bytes_read_from_disk",
                         "storage_bytes_received", "aggregation_parts", "raw_splits_read", "filter_splits_scanned"]


class QueryError(Exception):
    def __init__(self, message, query_id=None):
        super().__init__(message)
        self.query_id = query_id


class Trino:
    def __init__(self, server, user="nsc-bench", max_execution_time="30m"):
        self.server = server
        self.user = user
        self.max_execution_time = max_execution_time

    def execute(self, sql, catalog=None, schema=None, session=None):
        """Runs a statement to its end: {"id", "columns", "rows", "wall"}; wall is the client's time
        from sending the statement to the last row."""
        properties = [f"query_max_execution_time={self.max_execution_time}"] + ([session] if session else [])
        started = time.monotonic()
        result = request(self.server + "/v1/statement", self.user, sql.encode(), "POST", session=",".join(properties),
                         catalog=catalog, schema=schema)
        rows, columns = [], None
        while True:
            if columns is None and "columns" in result:
                columns = [column["name"] for column in result["columns"]]
            rows.extend(result.get("data", []))
            if "error" in result:
                raise QueryError(result["error"]["message"], result.get("id"))
            if "nextUri" not in result:
                return {"id": result["id"], "columns": columns or [], "rows": rows, "wall": time.monotonic() - started}
            result = request(result["nextUri"], self.user)

    def rows(self, sql, catalog=None, schema=None):
        return self.execute(sql, catalog, schema)["rows"]

    def query_info(self, query_id):
        """Trino's whole record of a query: its stages, operators and timings."""
        return request(f"{self.server}/v1/query/{query_id}", self.user)

    def query_stats(self, query_id):
        """What Trino measured of a finished query, plus nsc's connector counters (0 elsewhere)."""
        info = request(f"{self.server}/v1/query/{query_id}", self.user)
        stats = info["queryStats"]
        result = {
            "elapsed_s": round(duration_seconds(stats["elapsedTime"]), 3),
            "planning_s": round(duration_seconds(stats.get("planningTime", "0s")), 3),
            "trino_cpu_s": round(duration_seconds(stats["totalCpuTime"]), 3),
            "physical_input_bytes": data_size_bytes(stats["physicalInputDataSize"]),
            "physical_input_rows": int(stats.get("physicalInputPositions", 0)),
            "peak_memory_bytes": data_size_bytes(stats.get("peakUserMemoryReservation", "0B")),
        }
        counters = connector_counters(info, NSC_SPLIT_METRICS, NSC_CONNECTOR_METRICS)
        result["storage_scan_cpu_s"] = round(counters.pop("storage_cpu_nanos") / 1e9, 3)
        result.update(counters)
        return result
