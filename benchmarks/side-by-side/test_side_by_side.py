"""Quick checks of what decides the benchmark's verdicts without running it: the comparison of
answers, the summary and the report made from canned runs, and the small parsers.

    python3 -m unittest discover -s benchmarks/side-by-side -p 'test_*.py'

Standard library only; no cluster, no root, a second or two.
"""
import json
import os
import tempfile
import unittest

import compare
import report
import workloads
from testbed import parse_rate, rate_label, tbf_burst_bytes


class CompareTest(unittest.TestCase):
    def test_doubles_summed_in_another_order_are_equal(self):
        self.assertIsNone(compare.compare([["A", 1234567.891234567, 3]], [["A", 1234567.8912345671, 3]]))

    def test_a_different_value_is_a_mismatch(self):
        self.assertIn("differs", compare.compare([["A", 1.0]], [["A", 1.001]]))
        self.assertIn("differs", compare.compare([["A", 1]], [["B", 1]]))

    def test_a_missing_row_is_a_mismatch(self):
        self.assertEqual("1 rows, expected 2", compare.compare([[1], [2]], [[1]]))

    def test_rows_in_another_order_are_equal_without_order_by(self):
        self.assertIsNone(compare.compare([[1, "a"], [2, "b"]], [[2, "b"], [1, "a"]]))

    def test_rows_tied_on_the_sort_key_may_come_in_any_order(self):
        reference = [[10, "x"], [5, "a"], [5, "b"], [1, "z"]]
        actual = [[10, "x"], [5, "b"], [5, "a"], [1, "z"]]
        self.assertIsNone(compare.compare(reference, actual, order_columns=[0]))

    def test_a_row_out_of_order_is_a_mismatch(self):
        reference = [[10, "x"], [5, "a"], [1, "z"]]
        actual = [[5, "a"], [10, "x"], [1, "z"]]
        self.assertIn("out of order", compare.compare(reference, actual, order_columns=[0]))

    def test_nulls_and_nan(self):
        self.assertIsNone(compare.compare([[None, float("nan")]], [[None, float("nan")]]))
        self.assertIsNotNone(compare.compare([[None]], [[0.0]]))

    def test_order_by_columns_of_the_outer_query(self):
        sql = "SELECT a, sum(b) AS total FROM (SELECT * FROM t ORDER BY z) GROUP BY a ORDER BY total DESC, a LIMIT 10"
        self.assertEqual([1, 0], compare.order_by_columns(sql, ["a", "total"]))

    def test_order_by_an_expression_is_not_checked(self):
        self.assertIsNone(compare.order_by_columns("SELECT a FROM t ORDER BY a + 1", ["a"]))
        self.assertIsNone(compare.order_by_columns("SELECT a FROM t", ["a"]))

    def test_every_ordered_query_sorts_by_names(self):
        # an ORDER BY item that is an expression would silently skip the order check
        for query in workloads.tpch_queries() + workloads.point_queries(1) + workloads.shape_queries() + workloads.topn_queries():
            items = compare.order_by_items(query.sql)
            if items is not None:
                self.assertTrue(items and all(item.replace("_", "").isalnum() for item in items), (query.name, items))


class WorkloadTest(unittest.TestCase):
    def test_shipdate_thresholds_match_the_nearest_day(self):
        histogram = [("1992-01-02", 10), ("1992-01-03", 40), ("1992-01-04", 50)]
        thresholds = workloads.shipdate_thresholds(histogram, 100)
        self.assertEqual("1992-01-02", thresholds[0.0])
        self.assertIsNone(thresholds[1.0])
        self.assertEqual("1992-01-03", thresholds[0.1])  # < 01-03 matches 10 rows
        self.assertEqual("1992-01-04", thresholds[0.5])  # < 01-04 matches 50 rows

    def test_point_lookups_use_existing_order_keys(self):
        for query in workloads.point_queries(1):
            key = query.params["l_orderkey"]
            self.assertLess((key - 1) % 32, 8, key)

    def test_the_concurrency_mix_names_queries_that_exist(self):
        queries = (workloads.tpch_queries() + workloads.selectivity_queries(1, [("1992-01-02", 1), ("1998-12-01", 1)], 2)
                   + workloads.point_queries(1) + workloads.join_queries() + workloads.topn_queries())
        names = {query.name for query in queries}
        self.assertEqual([], [name for name in workloads.CONCURRENCY_MIX if name not in names])


class TestbedTest(unittest.TestCase):
    def test_rates(self):
        self.assertEqual(250_000_000, parse_rate("250mbit"))
        self.assertEqual(4_000_000_000, parse_rate("4gbit"))
        self.assertEqual("1gbit", rate_label(parse_rate("1gbit")))
        self.assertEqual("250mbit", rate_label(parse_rate("250mbit")))
        with self.assertRaises(ValueError):
            parse_rate("1 GB/s")

    def test_burst_holds_gso_segments_and_two_milliseconds(self):
        self.assertEqual(256 * 1024, tbf_burst_bytes(parse_rate("250mbit")))
        self.assertEqual(1_000_000, tbf_burst_bytes(parse_rate("4gbit")))


def _run(query, path, run, wall, workload="tpch", status="ok", rate="1gbit", **extra):
    record = {"rate": rate, "rate_bits": parse_rate(rate), "workload": workload, "query": query, "column": extra.pop("column", ""),
              "selectivity": extra.pop("selectivity", ""), "path": path, "run": run, "status": status, "detail": "" if status == "ok" else "boom",
              "wall_s": wall, "link_rx_bytes": extra.pop("link_rx_bytes", 1000), "link_tx_bytes": 10, "storage_cpu_s": 0.5,
              "trino_process_cpu_s": 1.0, "trino_cpu_s": 0.9, "physical_input_bytes": 900, "storage_rows_scanned": 100,
              "storage_scan_cpu_s": 0.1}
    record.update(extra)
    return record


def _canned_runs():
    runs = []
    for path, wall in (("nsc", 1.0), ("hive", 4.0), ("iceberg", 2.0)):
        for query in ("q01", "q02"):
            runs.append(_run(query, path, "warmup", wall * 2))
            runs.append(_run(query, path, "cold", wall * 1.5))
            for attempt, noise in ((1, 1.1), (2, 1.0), (3, 0.9)):
                runs.append(_run(query, path, str(attempt), wall * noise))
        for attempt in ("cold", "1", "2", "3"):
            runs.append(_run("unsorted 1%", path, attempt, wall / 10, workload="selectivity", column="unsorted", selectivity=0.01))
            runs.append(_run("full scan", path, attempt, wall, workload="full", link_rx_bytes=100_000_000))
    # q02 on iceberg differs once: a failure, no figure
    runs.append(_run("q02", "iceberg", "4", 2.0, status="mismatch"))
    return runs


class ReportTest(unittest.TestCase):
    def _through_csv(self, directory, runs):
        # the report reads what run.py wrote: the same values through the CSV file
        report.write_csv(os.path.join(directory, "runs.csv"), runs)
        return report.read_csv(os.path.join(directory, "runs.csv"))

    def test_summary_medians_speedups_and_failures(self):
        with tempfile.TemporaryDirectory() as directory:
            rows = report.summarize(self._through_csv(directory, _canned_runs()))
        by_key = {(r["query"], r["path"]): r for r in rows}
        nsc = by_key[("q01", "nsc")]
        self.assertEqual(1.0, nsc["warm_median_s"])
        self.assertEqual(1.5, nsc["cold_s"])
        self.assertEqual(4.0, nsc["speedup_vs_hive"])
        self.assertEqual(2.0, nsc["speedup_vs_iceberg"])
        self.assertEqual("mismatch", by_key[("q02", "iceberg")]["status"])
        self.assertNotIn("warm_median_s", by_key[("q02", "iceberg")])
        self.assertNotIn("speedup_vs_iceberg", by_key[("q02", "nsc")])
        self.assertEqual(4.0, by_key[("q02", "nsc")]["speedup_vs_hive"])
        # 100 MB in 4 s at 1 Gbit/s: 20% of the link
        self.assertEqual(0.2, by_key[("full scan", "hive")]["link_utilisation"])

    def test_headline_and_targets(self):
        with tempfile.TemporaryDirectory() as directory:
            rows = report.summarize(self._through_csv(directory, _canned_runs()))
        headline = report.headline(rows, [], "1gbit")
        self.assertAlmostEqual(4.0, headline["tpch_geomean_speedup"]["hive"][0])
        self.assertEqual(["q02"], headline["tpch_failed"])
        verdicts = {name: (verdict, detail) for name, verdict, detail in report.targets(rows, [])}
        self.assertEqual("missed", verdicts["at least 10x faster than Hive at 1% selectivity on an unsorted column"][0])
        # 2 of 22 TPC-H queries measured: never "met"
        self.assertEqual("missed", verdicts["at least 2x on the TPC-H geometric mean (against Hive)"][0])
        self.assertEqual("met", verdicts["at least 0.95x on full scans (against Hive)"][0])
        self.assertEqual("missed", verdicts["full scans use at least 90% of the link"][0])

    def test_render_writes_a_self_contained_page(self):
        with tempfile.TemporaryDirectory() as directory:
            self._through_csv(directory, _canned_runs())
            report.write_csv(os.path.join(directory, "concurrency.csv"),
                             [{"rate": "1gbit", "rate_bits": 10 ** 9, "path": "nsc", "streams": 8, "queries": 96, "ok": 96, "failed": 0,
                               "makespan_s": 60.0, "queries_per_hour": 5760.0, "link_rx_bytes": 5, "link_tx_bytes": 1,
                               "storage_cpu_s": 3.0, "trino_process_cpu_s": 9.0}])
            report.write_csv(os.path.join(directory, "link.csv"), [])
            with open(os.path.join(directory, "environment.json"), "w") as file:
                json.dump({"scale": 1, "command": "./nsc bench --sweep", "rates": ["1gbit"]}, file)
            summary = report.render(directory)
            with open(os.path.join(directory, "report.html")) as file:
                page = file.read()
            self.assertTrue(os.path.exists(os.path.join(directory, "summary.csv")))
        self.assertIn("TPC-H geometric mean of per-query speedups, nsc vs hive: 4.00x over 2 queries", summary)
        self.assertIn("q02 on iceberg: mismatch", summary)
        self.assertIn("<svg", page)
        self.assertNotIn("<script", page)
        self.assertNotIn("http://", page.replace('xmlns="http://www.w3.org/2000/svg"', ""))
        self.assertIn("./nsc bench --sweep", page)


if __name__ == "__main__":
    unittest.main()
