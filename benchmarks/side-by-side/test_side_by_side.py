"""Quick checks of what decides the benchmark's verdicts without running it: the comparison of
answers, the summary and the report made from canned runs, and the small parsers.

    python3 -m unittest discover -s benchmarks/side-by-side -p 'test_*.py'

Standard library only; no cluster, no root, a second or two.
"""
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

import compare
import cpusets
import report
import run
import workloads
from testbed import Service, parse_rate, rate_label, tbf_burst_bytes


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


class CpuListTest(unittest.TestCase):
    def test_lists_parse_to_cpus_and_format_as_the_kernel_does(self):
        self.assertEqual((1,), cpusets.parse_cpu_list("1"))
        self.assertEqual((0, 2, 3, 5), cpusets.parse_cpu_list("0,2-3,5"))
        self.assertEqual("0-2,5", cpusets.format_cpu_list((5, 0, 1, 2)))
        self.assertEqual("1", cpusets.format_cpu_list([1]))
        for text in ("0-2,5", "3", "0,2"):
            self.assertEqual(text, cpusets.format_cpu_list(cpusets.parse_cpu_list(text)))

    def test_malformed_lists_are_refused(self):
        for text in ("", "a", "1-", "3-1", "0;1", "-1"):
            with self.assertRaises(ValueError, msg=text):
                cpusets.parse_cpu_list(text)


class CpuSetChoiceTest(unittest.TestCase):
    def test_two_cpus_put_trino_on_0_and_the_storage_side_on_1(self):
        self.assertEqual({"storage": (1,), "trino": (0,)}, cpusets.choose_cpu_sets(None, None, (0, 1)))

    def test_more_cpus_are_halved(self):
        self.assertEqual({"storage": (2, 3), "trino": (0, 1)}, cpusets.choose_cpu_sets(None, None, (0, 1, 2, 3)))

    def test_one_side_named_the_other_gets_the_rest(self):
        self.assertEqual({"storage": (3,), "trino": (0, 1, 2)}, cpusets.choose_cpu_sets("3", None, (0, 1, 2, 3)))
        self.assertEqual({"storage": (1, 2, 3), "trino": (0,)}, cpusets.choose_cpu_sets(None, "0", (0, 1, 2, 3)))

    def test_overlapping_sets_are_refused(self):
        with self.assertRaisesRegex(ValueError, "disjoint; both have CPU 1"):
            cpusets.choose_cpu_sets("1", "0-1", (0, 1))

    def test_a_cpu_that_is_not_available_is_refused(self):
        with self.assertRaisesRegex(ValueError, "--storage-cpus: CPU 7 is not available here .*CPUs 0-1"):
            cpusets.choose_cpu_sets("7", "0", (0, 1))

    def test_one_cpu_cannot_be_split(self):
        with self.assertRaisesRegex(ValueError, "at least 2 CPUs"):
            cpusets.choose_cpu_sets(None, None, (0,))
        with self.assertRaisesRegex(ValueError, "leaves no CPU for the storage side"):
            cpusets.choose_cpu_sets(None, "0-1", (0, 1))


_ARGS = ["--trino-server", "server", "--plugins", "hive,iceberg", "--s3proxy-jar", "s3proxy.jar"]


class OptionTest(unittest.TestCase):
    def _error(self, argv, available=(0, 1)):
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr), self.assertRaises(SystemExit):
            run.parse_args(argv + _ARGS, available)
        return stderr.getvalue()

    def test_the_default_is_the_shared_testbed_as_before(self):
        args = run.parse_args(_ARGS, (0, 1))
        self.assertEqual(["shared"], args.testbed_list)
        self.assertEqual({}, args.cpu_sets)

    def test_split_and_both(self):
        args = run.parse_args(["--testbed", "split"] + _ARGS, (0, 1))
        self.assertEqual(["split"], args.testbed_list)
        self.assertEqual({"storage": (1,), "trino": (0,)}, args.cpu_sets)
        args = run.parse_args(["--testbed", "both", "--storage-cpus", "0", "--trino-cpus", "1"] + _ARGS, (0, 1))
        self.assertEqual(["shared", "split"], args.testbed_list)
        self.assertEqual({"storage": (0,), "trino": (1,)}, args.cpu_sets)

    def test_nsc_properties_reach_the_catalog_as_given(self):
        args = run.parse_args(["--nsc-property", "nsc.dynamic-filtering-wait-timeout=5s", "--nsc-property", "nsc.pushdown=raw"] + _ARGS, (0, 1))
        self.assertEqual(["nsc.dynamic-filtering-wait-timeout=5s", "nsc.pushdown=raw"], args.nsc_property)
        self.assertEqual([], run.parse_args(_ARGS, (0, 1)).nsc_property)
        for bad in ["pushdown=raw", "nsc.pushdown", "nsc.a=b,nsc.c=d", "hive.x=1"]:
            self.assertIn("--nsc-property takes nsc.<name>=<value>", self._error(["--nsc-property", bad]))

    def test_bad_choices_are_usage_errors(self):
        self.assertIn("invalid choice: 'apart'", self._error(["--testbed", "apart"]))
        self.assertIn("disjoint", self._error(["--testbed", "split", "--storage-cpus", "1", "--trino-cpus", "1"]))
        self.assertIn("CPU 4 is not available", self._error(["--testbed", "split", "--trino-cpus", "4"]))
        self.assertIn("at least 2 CPUs", self._error(["--testbed", "split"], available=(0,)))
        self.assertIn("add --testbed split", self._error(["--storage-cpus", "1"]))


class BothTestbedsTest(unittest.TestCase):
    def _main(self, argv, results):
        calls = []

        def run_testbed(args, settings, mode, out):
            calls.append((mode, out))
            return results[len(calls) - 1]
        with mock.patch.object(run, "run_testbed", run_testbed), mock.patch.object(run.os, "geteuid", return_value=0), \
                mock.patch.object(run.cpusets, "available_cpus", return_value=(0, 1)), mock.patch.object(run.signal, "signal"):
            try:
                run.main(argv + _ARGS)
                code = 0
            except SystemExit as exit_:
                code = exit_.code
        return calls, code

    def test_both_runs_shared_then_split_into_subfolders(self):
        calls, code = self._main(["--testbed", "both", "--out", "/tmp/results"], [(True, False), (True, False)])
        self.assertEqual([("shared", "/tmp/results/shared"), ("split", "/tmp/results/split")], calls)
        self.assertEqual(0, code)

    def test_one_testbed_writes_into_out_itself(self):
        calls, _ = self._main(["--testbed", "split", "--out", "/tmp/results"], [(True, False)])
        self.assertEqual([("split", "/tmp/results")], calls)

    def test_an_interrupted_first_testbed_ends_the_run(self):
        calls, code = self._main(["--testbed", "both", "--out", "/tmp/results"], [(False, False), (True, False)])
        self.assertEqual([("shared", "/tmp/results/shared")], calls)
        self.assertEqual(1, code)


class QuietMachineTest(unittest.TestCase):
    def test_waits_while_the_load_is_high_and_stops_when_it_falls(self):
        loads = iter([(1.2, 1, 1), (1.2, 1, 1), (0.9, 1, 1), (0.3, 1, 1), (0.3, 1, 1), (0.3, 1, 1)])
        with mock.patch.object(run.os, "getloadavg", lambda: next(loads)), mock.patch.object(run.os, "cpu_count", return_value=2), \
                mock.patch.object(run.time, "sleep") as sleep, contextlib.redirect_stdout(io.StringIO()):
            run.wait_until_quiet(300)
        # 1.2 and 0.9 are at or above 0.25 per CPU on 2 CPUs (0.5): two sleeps, then quiet
        self.assertEqual(sleep.call_count, 2)

    def test_gives_up_after_the_limit(self):
        clock = iter(range(0, 1000, 50))
        with mock.patch.object(run.os, "getloadavg", return_value=(3.0, 3, 3)), mock.patch.object(run.os, "cpu_count", return_value=2), \
                mock.patch.object(run.time, "monotonic", lambda: next(clock)), mock.patch.object(run.time, "sleep"), \
                contextlib.redirect_stdout(io.StringIO()) as out:
            waited = run.wait_until_quiet(120)
        self.assertGreaterEqual(waited, 120)
        self.assertIn("did not quiet down within 120 s", out.getvalue())


class CgroupDetectionTest(unittest.TestCase):
    # a hybrid machine (this one): cpuset on the v1 hierarchy, a cgroup2 beside it without it
    HYBRID = ("31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
              "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
              "41 31 0:38 / {unified} rw,relatime - cgroup2 cgroup2 rw\n")

    def test_cgroup2_mounts_are_found_by_type(self):
        self.assertEqual(["/sys/fs/cgroup/unified"], cpusets.cgroup2_mounts(self.HYBRID.format(unified="/sys/fs/cgroup/unified")))
        self.assertEqual(["/sys/fs/cgroup"], cpusets.cgroup2_mounts("25 1 0:22 / /sys/fs/cgroup rw shared:9 - cgroup2 cgroup2 rw,nsdelegate"))

    def test_a_cgroup2_without_the_cpuset_controller_is_not_used(self):
        with tempfile.TemporaryDirectory() as root:
            mountinfo = self.HYBRID.format(unified=root)
            with open(os.path.join(root, "cgroup.controllers"), "w") as file:
                file.write("hugetlb\n")
            self.assertIsNone(cpusets.cgroup2_cpuset_root(mountinfo))
            with open(os.path.join(root, "cgroup.controllers"), "w") as file:
                file.write("cpuset cpu io memory pids\n")
            self.assertEqual(root, cpusets.cgroup2_cpuset_root(mountinfo))


class PlacementTest(unittest.TestCase):
    SETS = {"storage": (1,), "trino": (0,)}

    def test_the_shared_testbed_places_nothing(self):
        placement = cpusets.placement("shared", {})
        self.assertEqual([], placement.prefix("storage"))
        self.assertEqual("shared", placement.mode)

    def test_taskset_prefixes_each_side_with_its_list(self):
        placement = cpusets.placement("split", {"storage": (2, 3), "trino": (0, 1)}, cgroup_root=None)
        self.assertEqual(["taskset", "-a", "-c", "2-3"], placement.prefix("storage"))
        self.assertEqual(["taskset", "-a", "-c", "0-1"], placement.prefix("trino"))

    @unittest.skipUnless(shutil.which("taskset"), "no taskset")
    def test_a_taskset_prefixed_process_and_its_threads_run_on_the_set(self):
        cpu = cpusets.available_cpus()[-1]
        placement = cpusets.Taskset({"storage": (cpu,), "trino": (cpu,)})
        # a thread started after the exec, as a JVM starts its threads
        program = ("import os, threading; t = threading.Thread(target=lambda: print(sorted(os.sched_getaffinity(0)))); "
                   "t.start(); t.join()")
        output = subprocess.run(placement.prefix("storage") + [sys.executable, "-c", program], capture_output=True, text=True, check=True)
        self.assertEqual(f"[{cpu}]", output.stdout.strip())

    def test_cgroup_writes_enable_cpuset_then_set_each_side(self):
        placement = cpusets.CgroupCpusets(self.SETS, "/cg")
        self.assertEqual([("/cg/cgroup.subtree_control", "+cpuset"), ("/cg/nsc-bench/cgroup.subtree_control", "+cpuset"),
                          ("/cg/nsc-bench/storage/cpuset.cpus", "1"), ("/cg/nsc-bench/trino/cpuset.cpus", "0")], placement.writes())

    def test_the_cgroup_prefix_moves_the_process_in_and_execs_the_command_in_its_place(self):
        with tempfile.TemporaryDirectory() as root:
            placement = cpusets.CgroupCpusets(self.SETS, root)
            os.makedirs(placement.side_directory("trino"))
            procs = os.path.join(placement.side_directory("trino"), "cgroup.procs")
            output = subprocess.run(placement.prefix("trino") + ["sh", "-c", "echo $$"], capture_output=True, text=True, check=True)
            with open(procs) as file:
                # the pid that joined the cgroup is the command's own: it was exec'd, not forked
                self.assertEqual(output.stdout.strip(), file.read().strip())

    def test_cgroups_are_created_and_removed(self):
        with tempfile.TemporaryDirectory() as root:
            placement = cpusets.CgroupCpusets(self.SETS, root)
            placement.create()
            with open(os.path.join(root, "nsc-bench", "storage", "cpuset.cpus")) as file:
                self.assertEqual("1", file.read())
            with open(os.path.join(root, "nsc-bench", "cgroup.subtree_control")) as file:
                self.assertEqual("+cpuset", file.read())
            # a cgroup's interface files are the kernel's: rmdir removes a cgroup holding them;
            # here they are plain files, so they go first
            for directory, _, files in os.walk(placement.parent):
                for name in files:
                    os.remove(os.path.join(directory, name))
            placement.remove(timeout=1)
            self.assertEqual(["cgroup.subtree_control"], os.listdir(root))

    def test_a_cgroup_that_cannot_be_made_falls_back_to_taskset(self):
        messages = []
        placement = cpusets.create_placement("split", self.SETS, messages.append, cgroup_root="/nonexistent/cgroup")
        self.assertIsInstance(placement, cpusets.Taskset)
        self.assertIn("taskset instead", messages[0])


class AppliedCpuSetTest(unittest.TestCase):
    def _fake_proc(self, root, pid, lists):
        for tid, value in enumerate(lists, start=pid):
            os.makedirs(os.path.join(root, str(pid), "task", str(tid)))
            with open(os.path.join(root, str(pid), "task", str(tid), "status"), "w") as file:
                file.write(f"Name:\tjava\nCpus_allowed:\t2\nCpus_allowed_list:\t{value}\nMems_allowed_list:\t0\n")

    def test_every_thread_is_read_and_disagreement_shows(self):
        with tempfile.TemporaryDirectory() as proc:
            self._fake_proc(proc, 100, ["1", "1", "1"])
            self._fake_proc(proc, 200, ["0", "0-1"])
            applied = cpusets.applied_cpu_sets({"storage-1": 100, "trino": 200, "gone": 300}, proc)
        self.assertEqual({"storage-1": "1", "trino": "0 (1 threads); 0-1 (1 threads)", "gone": ""}, applied)

    def test_this_process_reads_back_its_own_affinity(self):
        self.assertEqual(cpusets.format_cpu_list(os.sched_getaffinity(0)), cpusets.applied_cpu_sets({"me": os.getpid()})["me"])

    def test_a_process_off_its_sides_set_is_a_problem(self):
        sets = {"storage": (1,), "trino": (0,)}
        sides = {"storage-1": "storage", "trino": "trino"}
        self.assertEqual([], cpusets.check_applied({"storage-1": "1", "trino": "0"}, sides, sets))
        self.assertEqual(["trino runs on CPUs '0-1', not its side's 0"], cpusets.check_applied({"storage-1": "1", "trino": "0-1"}, sides, sets))


class _FakeCluster:
    def __init__(self, services):
        self.services = {service.name: service for service in services}


@unittest.skipUnless(shutil.which("taskset") and len(cpusets.available_cpus()) >= 2, "needs taskset and 2 CPUs")
class SplitBenchTest(unittest.TestCase):
    """Bench's check of the sets as applied, on live processes started as the cluster starts its
    services (the placement's prefix in front of the command), no root or testbed needed."""

    def setUp(self):
        self.directory = tempfile.mkdtemp()
        self.services = []
        available = cpusets.available_cpus()
        self.args = run.parse_args(["--testbed", "split", "--trino-cpus", str(available[0]), "--storage-cpus", str(available[1])] + _ARGS)
        self.bench = run.Bench(self.args, run.Settings(self.args), "split", self.directory)
        self.bench.placement = cpusets.Taskset(self.args.cpu_sets)

    def tearDown(self):
        for service in self.services:
            service.stop(timeout=5)
        shutil.rmtree(self.directory)

    def _start(self, name, side, placed=True):
        prefix = self.bench.placement.prefix("storage" if side == "storage" else "trino") if placed else []
        service = Service(name, prefix + ["sleep", "30"], dict(os.environ), os.path.join(self.directory, name, "log"), side)
        self.services.append(service)
        return service

    def _wait_for_exec(self):
        # the pid is sleep's once taskset has exec'd it
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not all(cpusets.machine.read_text(f"/proc/{s.pid}/comm").strip() == "sleep" for s in self.services):
            time.sleep(0.01)

    def test_placed_services_are_on_disjoint_sets_and_recorded_so(self):
        self.bench.cluster = _FakeCluster([self._start("storage-1", "storage"), self._start("trino", "compute")])
        self._wait_for_exec()
        applied = self.bench.check_cpu_sets()
        storage, trino = (cpusets.format_cpu_list(self.args.cpu_sets[side]) for side in ("storage", "trino"))
        self.assertEqual({"storage-1": storage, "trino": trino}, applied)
        self.bench.cpu_sets_applied = applied
        self.bench.cpu_sets_at_end = self.bench.read_cpu_sets()
        facts = {**run.testbed_facts(self.args, "split"), **run.testbed_facts_at_end(self.bench)}
        self.assertEqual("split", facts["testbed"])
        self.assertEqual({"storage": storage, "trino": trino}, facts["cpu_sets_requested"])
        self.assertEqual(applied, facts["cpu_sets_applied"])
        self.assertEqual(applied, facts["cpu_sets_at_end"])
        self.assertEqual("taskset (affinity mask at process start)", facts["cpu_placement"])
        self.assertEqual(3, len(facts["load_average_at_start"]))
        self.assertEqual(3, len(facts["load_average_at_end"]))

    def test_a_service_left_on_every_cpu_ends_a_split_run(self):
        self.bench.cluster = _FakeCluster([self._start("storage-1", "storage"), self._start("trino", "compute", placed=False)])
        self._wait_for_exec()
        with self.assertRaisesRegex(RuntimeError, "the split testbed is not split: trino runs on CPUs"):
            self.bench.check_cpu_sets()


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


    def _render(self, environment, runs=None):
        with tempfile.TemporaryDirectory() as directory:
            self._through_csv(directory, runs or _canned_runs())
            with open(os.path.join(directory, "environment.json"), "w") as file:
                json.dump(environment, file)
            summary = report.render(directory)
            with open(os.path.join(directory, "summary.txt")) as file:
                self.assertEqual(summary + "\n", file.read())
            with open(os.path.join(directory, "report.html")) as file:
                return summary, file.read()

    SPLIT = {"scale": 1, "cpus": 2, "cpu_model": "Intel(R) Xeon(R) Processor", "command": "./nsc bench --testbed split",
             "nsc_commit": "0123456789abcdef", "nsc_tree_dirty": True, "testbed": "split",
             "cpu_sets_requested": {"storage": "1", "trino": "0"}, "cpu_placement": "taskset (affinity mask at process start)",
             "cpu_sets_applied": {"metadata": "1", "storage-1": "1", "s3proxy": "1", "trino": "0"},
             "load_average_at_start": [0.1, 0.2, 0.3], "load_average_at_end": [1.5, 1.2, 0.9]}

    def test_a_split_run_says_where_each_side_ran(self):
        # rows as run.py writes them now: a testbed column
        summary, page = self._render(self.SPLIT, [dict(r, testbed="split") for r in _canned_runs()])
        for text in ("testbed: split: storage side on CPUs 1, Trino on CPUs 0; placed by taskset (affinity mask at process start)",
                     "CPUs as applied (Cpus_allowed_list): metadata 1, storage-1 1, s3proxy 1, trino 0",
                     "load average (1, 5, 15 min) at start 0.10 0.20 0.30, at end 1.50 1.20 0.90",
                     "nsc 0123456789ab (uncommitted changes)", "(Intel(R) Xeon(R) Processor)", "command: ./nsc bench --testbed split"):
            self.assertIn(text, summary)
            self.assertIn(text, page.replace("&#x27;", "'"))
        self.assertNotIn("LOADED", summary)
        self.assertIn("nsc vs hive: 4.00x over 2 queries", summary)  # the testbed column does not disturb the figures
        self.assertIn("<h1>nsc side by side with Trino on S3: split testbed</h1>", page)
        self.assertIn("Split testbed: the storage side runs on CPUs 1 and Trino on CPUs 0", page)
        self.assertNotIn("all processes share", page)
        self.assertIn('{"metadata": "1", "storage-1": "1", "s3proxy": "1", "trino": "0"}', page.replace("&quot;", '"'))

    def test_a_set_that_changed_during_the_run_is_called_out(self):
        summary, _ = self._render(dict(self.SPLIT, cpu_sets_at_end={"metadata": "1", "storage-1": "0-1", "s3proxy": "1", "trino": "0"}))
        self.assertIn("CPUs CHANGED by the end of the run: storage-1 0-1", summary)
        summary, _ = self._render(dict(self.SPLIT, cpu_sets_at_end=self.SPLIT["cpu_sets_applied"]))
        self.assertNotIn("CHANGED", summary)

    def test_a_run_started_on_a_loaded_machine_is_labelled(self):
        summary, _ = self._render(dict(self.SPLIT, load_average_at_start=[1.4, 0.8, 0.5]))
        self.assertIn("LOADED MACHINE at start", summary)

    def test_the_wait_for_a_quiet_machine_is_reported(self):
        summary, _ = self._render(dict(self.SPLIT, waited_for_quiet_s=95.0))
        self.assertIn("at end 1.50 1.20 0.90 (after waiting 95 s for it to settle)", summary)
        summary, _ = self._render(dict(self.SPLIT, waited_for_quiet_s=0.0))
        self.assertNotIn("waiting", summary)

    def test_results_from_before_the_split_testbed_still_render_as_shared(self):
        summary, page = self._render({"scale": 1, "cpus": 2, "command": "./nsc bench --sweep", "rates": ["1gbit"]})
        self.assertIn("testbed: shared (not recorded", summary)
        self.assertNotIn("load average", summary)
        self.assertIn("<h1>nsc side by side with Trino on S3: shared testbed</h1>", page)
        self.assertIn("Shared testbed: all processes share the machine's 2 CPUs", page)

    def test_the_committed_sf1_results_still_render(self):
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "sf1")
        with tempfile.TemporaryDirectory() as directory:
            for name in ("runs.csv", "concurrency.csv", "link.csv", "environment.json"):
                shutil.copy(os.path.join(source, name), directory)
            summary = report.render(directory)
        self.assertIn("testbed: shared (not recorded", summary)
        self.assertIn("== 1gbit ==", summary)


if __name__ == "__main__":
    unittest.main()
