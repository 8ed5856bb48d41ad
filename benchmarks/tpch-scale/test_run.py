"""Checks of run.py's mode order and its verdict on auto, from canned runs (no cluster)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402


def record(query, mode, wall, attempt=1):
    return {"query": query, "mode": mode, "run": attempt, "wall_seconds": wall}


class TestRun(unittest.TestCase):
    def test_every_mode_leads_a_round_in_turn(self):
        modes = ["auto", "raw", "filter"]
        self.assertEqual([["auto", "raw", "filter"], ["raw", "filter", "auto"], ["filter", "auto", "raw"], ["auto", "raw", "filter"]],
                         [run.rotated(modes, shift) for shift in range(4)])

    def test_cold_runs_do_not_count(self):
        records = [record("q01", "auto", 9.0, "cold"), record("q01", "auto", 1.0), record("q01", "auto", 3.0)]
        self.assertEqual(2.0, run.warm_median(records, "q01", "auto"))
        self.assertIsNone(run.warm_median(records, "q01", "raw"))

    def test_auto_measured_against_the_better_mode_over_all_and_per_query(self):
        records = [record("q01", "auto", 1.0), record("q01", "raw", 2.0), record("q01", "filter", 0.9),
                   record("q02", "auto", 1.2), record("q02", "raw", 1.0), record("q02", "filter", 1.1)]
        lines = run.auto_verdict([("q01", ""), ("q02", "")], records, ["auto", "raw", "filter"])
        self.assertIn("  q02: auto 1.20 s, best 1.00 s (raw), auto / best 1.20", lines)
        self.assertIn("  total: auto 2.20 s, raw 3.00 s, filter 2.00 s; auto / filter 1.100 (NOT within 5%)", lines)
        self.assertIn("  slowest against its best mode: q02 1.20 (NOT within 15%)", lines)

    def test_auto_as_good_as_the_best(self):
        records = [record("q01", "auto", 1.0), record("q01", "raw", 1.0), record("q01", "filter", 1.2)]
        lines = run.auto_verdict([("q01", "")], records, ["auto", "raw", "filter"])
        self.assertIn("  total: auto 1.00 s, raw 1.00 s, filter 1.20 s; auto / raw 1.000 (within 5%)", lines)
        self.assertIn("  slowest against its best mode: q01 1.00 (within 15%)", lines)

    def test_no_verdict_without_the_three_modes(self):
        self.assertEqual([], run.auto_verdict([("q01", "")], [record("q01", "auto", 1.0)], ["auto", "none"]))


if __name__ == "__main__":
    unittest.main()
