#!/usr/bin/env python3
"""nsc side by side with Trino on S3 (Hive and Iceberg), over one rate-limited link.

    ./nsc bench [--scale S] [--rate R | --sweep | --rates R,R...] [--repeat N] [--out DIR] ...

The benchmark builds its own testbed and removes it at the end, also on failure or Ctrl-C: a
network namespace holding the storage side (nsc's metadata service and three storage nodes,
and s3proxy on its file-system backend) behind a veth link shaped by tbf in both directions, and
one Trino 476 on the host with the catalogs nsc, hive and iceberg. The same Parquet files (nsc's
TPC-H generator, lineitem and orders sorted by date) are loaded into nsc and put into S3, where
Hive external tables and Iceberg tables (add_files_from_table: the same objects) read them.

Every query runs on every path: once cold (the path's data files evicted from the page cache
first) and --repeat times warm, the paths' order rotating from run to run. Each run records wall
time, the bytes that crossed the link (the veth's counters), Trino's physical input, CPU seconds
of every process on each side (/proc), and nsc's connector counters; every answer is compared
with the reference path's, and a mismatch is a failure, not a figure. Then the concurrent
streams. Raw CSVs, environment.json and the HTML report go to --out (report.py renders them).

Two testbeds. shared (the default): every process on every CPU, so CPU the storage side spends is
taken from Trino. split: the storage side and Trino on disjoint CPU sets (--storage-cpus,
--trino-cpus; on 2 CPUs storage 1, Trino 0), as storage nodes with CPUs of their own; placed by a
cgroup v2 cpuset where the machine offers one, else by taskset, before each service's first
thread, and read back from /proc/<pid>/status (Cpus_allowed_list) into the results. both: the
whole run on each, into DIR/shared and DIR/split.

Linux and root only (ip netns, tc). Standard library only.
"""
import argparse
import gzip
import json
import os
import platform
import random
import re
import signal
import subprocess
import sys
import threading
import time

import compare
import cpusets
import machine
import data
import profile_summary
import report
import workloads
from cluster import Cluster
from testbed import CpuMeter, Link, LoadSampler, cpu_seconds, evict_page_cache, parse_rate, rate_label, run
from trino import QueryError, Trino

HERE = os.path.dirname(os.path.abspath(__file__))
NSC_HOME = os.path.abspath(os.path.join(HERE, "..", ".."))
SWEEP = ["250mbit", "1gbit", "4gbit"]
PATHS = ["nsc", "hive", "iceberg"]
# whose answer the others are compared with: Trino's own connectors first
REFERENCE_ORDER = ["hive", "iceberg", "nsc"]
CATALOGS = {"nsc": ("nsc", "tpch"), "hive": ("hive", data.HIVE_SCHEMA), "iceberg": ("iceberg", data.ICEBERG_SCHEMA)}


def log(message):
    print(f"bench: {message}", flush=True)


def parse_args(argv, available_cpus=None):
    parser = argparse.ArgumentParser(prog="./nsc bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="TPC-H scale factor (default 1; 10 as an option)")
    rates = parser.add_mutually_exclusive_group()
    rates.add_argument("--rate", help="link rate in tc's units (default 1gbit)")
    rates.add_argument("--sweep", action="store_true", help="the rates " + ", ".join(SWEEP))
    rates.add_argument("--rates", help="comma-separated link rates")
    parser.add_argument("--repeat", type=int, default=5, help="warm runs per query and path (default 5; the median is reported)")
    parser.add_argument("--out", default=None, help="results directory (default $NSC_VAR/bench/results)")
    parser.add_argument("--paths", default=",".join(PATHS), help="paths to run (default nsc,hive,iceberg)")
    parser.add_argument("--workloads", default=",".join(workloads.WORKLOADS), help="default: " + ",".join(workloads.WORKLOADS))
    parser.add_argument("--queries", default=None, help="only these TPC-H queries (q01,q06,...)")
    parser.add_argument("--streams", type=int, default=8, help="concurrent streams (default 8)")
    parser.add_argument("--plaintext", action="store_true", help="no TLS on either side (nsc with NSC_INSECURE=1, S3 over HTTP); default: both encrypted")
    parser.add_argument("--no-analyze", action="store_true", help="do not ANALYZE the Hive and Iceberg tables")
    parser.add_argument("--no-warmup", action="store_true", help="no warm-up pass (each query once on each path before the timed runs)")
    parser.add_argument("--warmup-passes", type=int, default=6,
                        help="warm-up passes over every query on every path before the timed runs (default 6); "
                             "a JVM compiles a query's code over dozens of runs, so the medians after one pass include compilation")
    parser.add_argument("--profile", default=None, help="after the runs, record JFR of Trino and each path's storage side over these queries "
                                                          "(comma-separated names, like 'unsorted 1%%,q01') at 1gbit, or the first rate")
    parser.add_argument("--profile-seconds", type=float, default=30.0, help="how long each profiled query runs on each path (default 30)")
    parser.add_argument("--testbed", choices=["shared", "split", "both"], default="shared",
                        help="shared: every process on every CPU (the default); split: the storage side (nsc's metadata service and "
                             "storage nodes, s3proxy) and Trino on disjoint CPU sets, as storage nodes are machines of their own; "
                             "both: the whole run in each, one after the other, into the subfolders shared/ and split/ of --out")
    parser.add_argument("--storage-cpus", help="split testbed: the storage side's CPUs, like 1 or 2-3 (default: the upper half of "
                                                 "the CPUs, or those --trino-cpus leaves)")
    parser.add_argument("--trino-cpus", help="split testbed: Trino's CPUs, like 0 or 0-1 (default: the lower half, or those "
                                               "--storage-cpus leaves); disjoint from the storage side's")
    parser.add_argument("--nsc-property", action="append", default=[], metavar="NAME=VALUE",
                        help="a property of Trino's nsc catalog for this run, like nsc.dynamic-filtering-wait-timeout=5s (repeatable; "
                             "recorded in environment.json)")
    parser.add_argument("--keep", action="store_true", help="keep the data copies (nsc's replicas, the S3 objects) after the run")
    parser.add_argument("--trino-heap", default=os.environ.get("NSC_BENCH_TRINO_HEAP", "4G"))
    parser.add_argument("--settle", type=int, default=300,
                        help="seconds to wait at most, before each testbed, for the 1-minute load average to fall below 0.25 per CPU (default 300)")
    parser.add_argument("--trino-server", default=os.environ.get("NSC_BENCH_TRINO_SERVER"), help=argparse.SUPPRESS)
    parser.add_argument("--plugins", default=os.environ.get("NSC_BENCH_PLUGINS"), help=argparse.SUPPRESS)
    parser.add_argument("--s3proxy-jar", default=os.environ.get("NSC_BENCH_S3PROXY_JAR"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.sweep:
        args.rate_list = SWEEP
    elif args.rates:
        args.rate_list = [rate.strip() for rate in args.rates.split(",") if rate.strip()]
    else:
        args.rate_list = [args.rate or "1gbit"]
    for rate in args.rate_list:
        parse_rate(rate)
    args.path_list = [path.strip() for path in args.paths.split(",") if path.strip()]
    unknown = [path for path in args.path_list if path not in PATHS]
    if unknown or not args.path_list:
        parser.error(f"--paths: one or more of {PATHS}")
    args.workload_list = [workload.strip() for workload in args.workloads.split(",") if workload.strip()]
    unknown = [workload for workload in args.workload_list if workload not in workloads.WORKLOADS]
    if unknown:
        parser.error(f"--workloads: unknown {unknown}; one or more of {workloads.WORKLOADS}")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.warmup_passes < 1:
        parser.error("--warmup-passes must be at least 1 (--no-warmup runs none)")
    args.testbed_list = ["shared", "split"] if args.testbed == "both" else [args.testbed]
    args.cpu_sets = {}
    if "split" in args.testbed_list:
        try:
            args.cpu_sets = cpusets.choose_cpu_sets(args.storage_cpus, args.trino_cpus, available_cpus or cpusets.available_cpus())
        except ValueError as error:
            parser.error(str(error))
    elif args.storage_cpus or args.trino_cpus:
        parser.error("--storage-cpus and --trino-cpus choose the split testbed's CPU sets: add --testbed split or --testbed both")
    for prop in args.nsc_property:
        if not re.fullmatch(r"nsc\.[a-z0-9.-]+=[^=,]+", prop):
            parser.error(f"--nsc-property takes nsc.<name>=<value>, got '{prop}'")
    for name in ("trino_server", "plugins", "s3proxy_jar"):
        if not getattr(args, name):
            parser.error("run through ./nsc bench, which downloads the Trino server, its hive and iceberg plugins and s3proxy "
                         f"(missing --{name.replace('_', '-')})")
    return args


class Settings:
    def __init__(self, args):
        self.nsc_home = NSC_HOME
        self.nsc_var = os.path.abspath(os.environ.get("NSC_VAR", os.path.join(NSC_HOME, "var")))
        self.data_dir = os.path.join(self.nsc_var, "bench", "tpch")
        self.run_dir = os.path.join(self.nsc_var, "bench", "run")
        self.trino_server = args.trino_server
        self.plugins = [path for path in args.plugins.split(",") if path]
        self.s3proxy_jar = args.s3proxy_jar
        self.port_base = int(os.environ.get("NSC_BENCH_PORT_BASE", "17070"))
        self.trino_port = int(os.environ.get("NSC_BENCH_TRINO_PORT", "18080"))
        self.trino_heap = args.trino_heap
        self.plaintext = args.plaintext
        self.nsc_properties = args.nsc_property
        self.netns = os.environ.get("NSC_BENCH_NETNS", "nscbench")
        self.subnet = os.environ.get("NSC_BENCH_SUBNET", "10.77.0")


# --- facts about the run ---------------------------------------------------------------------

def _output(command):
    try:
        return subprocess.run(command, capture_output=True, text=True, cwd=NSC_HOME, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def other_activity(exclude=(), seconds=3.0):
    """Processes that were not the benchmark's and used at least 5% of a CPU over a few seconds:
    what else ran on the machine."""
    def snapshot():
        result = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/cmdline", "rb") as file:
                        command = file.read().replace(b"\0", b" ").decode(errors="replace").strip()
                except OSError:
                    continue
                result[int(entry)] = (cpu_seconds(int(entry)), command)
        return result
    mine = {os.getpid()} | set(exclude)
    before = snapshot()
    time.sleep(seconds)
    after = snapshot()
    busy = []
    for pid, (cpu, command) in after.items():
        if pid in mine or pid not in before or not command:
            continue
        share = (cpu - before[pid][0]) / seconds
        if share >= 0.05:
            busy.append((share, f"{share:.0%} of a CPU: {command[:160]}"))
    return [text for _, text in sorted(busy, reverse=True)[:10]]


def load_average():
    return [round(value, 2) for value in os.getloadavg()]


def wait_until_quiet(limit_seconds):
    """Waits, at most limit_seconds, until the 1-minute load average is below what the report calls
    a loaded machine: the build before a run, or the other testbed's run just before it, would
    otherwise be what the load average at start records. Returns the seconds waited."""
    quiet_below = report.LOADED_PER_CPU * (os.cpu_count() or 1)
    started = time.monotonic()
    while os.getloadavg()[0] >= quiet_below and time.monotonic() - started < limit_seconds:
        if int(time.monotonic() - started) % 60 < 5:
            log(f"waiting for a quiet machine: load average {os.getloadavg()[0]:.2f}, below {quiet_below:.2f} wanted")
        time.sleep(5)
    waited = round(time.monotonic() - started, 1)
    if os.getloadavg()[0] >= quiet_below:
        log(f"the machine did not quiet down within {limit_seconds} s (load average {os.getloadavg()[0]:.2f}): the results will say LOADED")
    return waited


def testbed_facts(args, mode):
    """What the results say of the testbed before it is built: the mode, the CPU sets asked for,
    and the load average before anything of the run's own (the sets as applied come later,
    read back from the processes: testbed_facts_at_end)."""
    return {
        "testbed": mode,
        "cpu_sets_requested": ({side: cpusets.format_cpu_list(cpus) for side, cpus in args.cpu_sets.items()} if mode == "split" else {}),
        "load_average_at_start": load_average(),
    }


def testbed_facts_at_end(bench):
    """The testbed as it was: how the CPU sets were placed, each service's Cpus_allowed_list read
    back after the start and before the stop, and the load average at the end."""
    return {
        "load_average_at_end": load_average(),
        "cpu_placement": bench.placement.method if bench.placement else "",
        "cpu_sets_applied": bench.cpu_sets_applied,
        "cpu_sets_at_end": bench.cpu_sets_at_end,
    }


def machine_facts(args, settings, mode):
    at_start = testbed_facts(args, mode)  # first: the load average before the run's own work
    cpuinfo = machine.read_text("/proc/cpuinfo")
    model = next((line.split(":", 1)[1].strip() for line in cpuinfo.splitlines() if line.startswith("model name")), platform.processor())
    memory = next((line.split()[1] for line in machine.read_text("/proc/meminfo").splitlines() if line.startswith("MemTotal")), "0")
    os_release = dict(line.split("=", 1) for line in machine.read_text("/etc/os-release").splitlines() if "=" in line)
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.strip().splitlines()
    return {
        "cpu_model": model,
        "cpus": os.cpu_count(),
        "memory_gib": round(int(memory) / 1024 / 1024, 1),
        "kernel": platform.release(),
        "os": os_release.get("PRETTY_NAME", "").strip('"'),
        "java": java[0] if java else "",
        "java_runtime": java[1] if len(java) > 1 else "",
        "python": platform.python_version(),
        "nsc_commit": _output(["git", "rev-parse", "HEAD"]),
        "nsc_commit_subject": _output(["git", "log", "-1", "--format=%s"]),
        "nsc_tree_dirty": bool(_output(["git", "status", "--porcelain", "--untracked-files=no"])),
        "trino": "476 (io.trino:trino-server:476, plugins trino-hive-476.zip and trino-iceberg-476.zip)",
        "s3proxy": os.path.basename(settings.s3proxy_jar),
        "command": os.environ.get("NSC_BENCH_COMMAND") or " ".join([sys.argv[0]] + sys.argv[1:]),
        **at_start,
        "scale": args.scale,
        "rates": args.rate_list,
        "repeat": args.repeat,
        "warmup_passes": 0 if args.no_warmup else args.warmup_passes,
        "paths": args.path_list,
        "tls": not args.plaintext,
        "analyze": not args.no_analyze,
        "streams": args.streams,
        "nsc_properties": args.nsc_property,
        "other_processes_at_start": other_activity(),  # before the testbed exists
    }


# --- the benchmark ---------------------------------------------------------------------------

class Bench:
    def __init__(self, args, settings, mode, out):
        self.args = args
        self.settings = settings
        self.mode = mode
        self.out = out
        self.placement = None
        subnet = settings.subnet
        self.link = Link(settings.netns, "nscb0", "nscb1", f"{subnet}.1", f"{subnet}.2")
        self.cluster = None
        self.trino = None
        self.meter = None
        self.records = []
        self.stream_records = []
        self.concurrency = []
        self.calibration = []
        self.profiles = []
        self.references = {}
        self.steps = []
        self.cpu_sets_applied = {}
        self.cpu_sets_at_end = {}

    def step(self, name, started):
        seconds = round(time.monotonic() - started, 1)
        self.steps.append({"step": name, "seconds": seconds})
        log(f"{name}: {seconds} s")

    # --- setup ---

    def setup(self):
        started = time.monotonic()
        parquet = data.generate(self.settings, self.args.scale)
        self.step("generate TPC-H (or find it generated)", started)

        started = time.monotonic()
        subprocess.run(["rm", "-rf", self.settings.run_dir], check=True)
        os.makedirs(self.settings.run_dir)
        self.link.create()
        self.placement = cpusets.create_placement(self.mode, self.args.cpu_sets if self.mode == "split" else {}, log)
        self.cluster = Cluster(self.settings, self.link, self.settings.run_dir, self.placement)
        self.cluster.prepare_tls()
        self.cluster.start_storage_side()
        self.cluster.start_trino()
        self._write_pids()
        self.cpu_sets_applied = self.check_cpu_sets()
        self.trino = Trino(f"http://127.0.0.1:{self.settings.trino_port}")
        self.meter = CpuMeter(list(self.cluster.services.values()))
        self.step("start the testbed", started)

        started = time.monotonic()
        data.load_nsc(self.cluster, parquet)
        self.step("load nsc (validate, upload two replicas, commit)", started)
        started = time.monotonic()
        data.upload_s3(self.cluster, parquet)
        self.step("put the files into S3", started)
        started = time.monotonic()
        columns = data.nsc_columns(self.trino)
        data.register_hive_and_iceberg(self.trino, columns, not self.args.no_analyze)
        data.verify(self.trino, columns)
        self.step("register and analyze the Hive and Iceberg tables", started)
        # every copy on disk now, so evicting it from the page cache really makes it cold
        os.sync()
        self.histogram = data.shipdate_histogram(self.trino)
        self.total_rows = sum(count for _, count in self.histogram)

    def read_cpu_sets(self):
        """Each service's Cpus_allowed_list as the kernel has it now (all its threads)."""
        if self.cluster is None:
            return {}
        return cpusets.applied_cpu_sets({service.name: service.pid for service in self.cluster.services.values()})

    def check_cpu_sets(self):
        """The sets as applied; on the split testbed a service off its side's set ends the run,
        for its figures would be the shared testbed's under the split's name."""
        applied = self.read_cpu_sets()
        log("CPUs as applied (Cpus_allowed_list): " + ", ".join(f"{name} {value}" for name, value in applied.items()))
        if self.mode == "split":
            sides = {service.name: "storage" if service.side == "storage" else "trino" for service in self.cluster.services.values()}
            problems = cpusets.check_applied(applied, sides, self.placement.cpu_sets)
            if problems:
                raise RuntimeError("the split testbed is not split: " + "; ".join(problems))
        return applied

    def _write_pids(self):
        with open(os.path.join(self.settings.run_dir, "pids"), "w") as file:
            for service in self.cluster.services.values():
                file.write(f"{service.pid} {service.name}\n")

    def queries(self):
        chosen = self.args.workload_list
        names = set(self.args.queries.split(",")) if self.args.queries else None
        result = []
        if "tpch" in chosen:
            result += workloads.tpch_queries(names)
        if "selectivity" in chosen:
            result += workloads.selectivity_queries(self.args.scale, self.histogram, self.total_rows)
        if "point" in chosen:
            result += workloads.point_queries(self.args.scale)
        if "shapes" in chosen:
            result += workloads.shape_queries()
        if "topn" in chosen:
            result += workloads.topn_queries()
        if "join" in chosen:
            result += workloads.join_queries()
        if "full" in chosen:
            result += workloads.full_scan_queries()
        return result

    # --- one run of one query on one path ---

    def measure(self, query, path, rate, run_label):
        catalog, schema = CATALOGS[path]
        rx_before, tx_before = self.link.counters()
        cpu_before = self.meter.snapshot()
        error, result = None, None
        try:
            result = self.trino.execute(query.sql, catalog, schema)
        except (QueryError, OSError) as exception:
            error = str(exception).splitlines()[0][:300]
        rx_after, tx_after = self.link.counters()
        cpu = CpuMeter.delta(cpu_before, self.meter.snapshot())
        record = {
            "testbed": self.mode,
            "rate": rate_label(rate) if rate else "unshaped", "rate_bits": rate or 0,
            "workload": query.workload, "query": query.name, "column": query.column,
            "selectivity": "" if query.selectivity is None else query.selectivity,
            "path": path, "run": run_label,
            "status": "ok", "detail": "",
            "wall_s": round(result["wall"], 3) if result else "",
            "link_rx_bytes": rx_after - rx_before, "link_tx_bytes": tx_after - tx_before,
            "storage_cpu_s": round(sum(cpu[s.name] for s in self._storage_services(path)), 3),
            "trino_process_cpu_s": cpu["trino"],
            "rows_out": len(result["rows"]) if result else "",
            "matched_rows": result["rows"][0][0] if result and query.workload == "selectivity" else "",
        }
        for name, seconds in cpu.items():
            record[f"cpu_{name}"] = seconds
        if error:
            record["status"], record["detail"] = "error", error
            self.records.append(record)
            log(f"{path:8} {query.name:32} run {run_label}: ERROR {error}")
            return record
        record.update(self.trino.query_stats(result["id"]))
        record["query_id"] = result["id"]
        self._save_query_info(result["id"])
        difference = self._check(query, path, result)
        if difference:
            record["status"], record["detail"] = "mismatch", difference
            log(f"{path:8} {query.name:32} run {run_label}: MISMATCH {difference}")
        self.records.append(record)
        return record

    def _save_query_info(self, query_id):
        """Trino's whole record of the query (stages, operators, timings), when NSC_BENCH_QUERY_INFO
        names a directory: to see where a query's time went after the testbed is gone."""
        directory = os.environ.get("NSC_BENCH_QUERY_INFO")
        if not directory:
            return
        os.makedirs(directory, exist_ok=True)
        info = self.trino.query_info(query_id)
        with gzip.open(os.path.join(directory, f"{query_id}.json.gz"), "wt") as output:
            json.dump(info, output)

    def _storage_services(self, path):
        return self.cluster.nsc_services() if path == "nsc" else [self.cluster.services["s3proxy"]]

    def _check(self, query, path, result):
        """A difference from the reference answer (the first of hive, iceberg, nsc that answered
        the query), or None. The reference path's own runs are compared with its first answer."""
        reference = self.references.get(query.name)
        if reference is None:
            self.references[query.name] = (path, result["columns"], result["rows"])
            return None
        # the first answer stays the reference, even when an earlier path of the order answers
        # only later (its warm-up failed), so that every answer meets the same one
        reference_path, columns, rows = reference
        order = compare.order_by_columns(query.sql, columns)
        difference = compare.compare(rows, result["rows"], order)
        return f"{difference} (against {reference_path})" if difference else None

    # --- the runs ---

    def rotated(self, index):
        paths = self.args.path_list
        shift = index % len(paths)
        return paths[shift:] + paths[:shift]

    def warmup(self, queries, rate):
        """Each query once on each path per pass, the reference path first: JIT-compiled code
        and the connectors' metadata caches are warm for every path before anything is timed,
        and every later answer is compared with the reference's."""
        order = sorted(self.args.path_list, key=REFERENCE_ORDER.index)
        for _ in range(self.args.warmup_passes):
            for query in queries:
                for path in order:
                    self.measure(query, path, rate, "warmup")

    def run_query(self, query, index, rate):
        # cold: the path's data files evicted from the page cache just before its run
        for path in self.rotated(index):
            evict_page_cache(self.cluster.data_directories(path))
            self.measure(query, path, rate, "cold")
        for attempt in range(1, self.args.repeat + 1):
            for path in self.rotated(index + attempt):
                self.measure(query, path, rate, str(attempt))
        summary = []
        for path in self.args.path_list:
            walls = sorted(r["wall_s"] for r in self.records if r["query"] == query.name and r["path"] == path
                           and r["rate_bits"] == rate and r["run"] not in ("warmup", "cold") and r["status"] == "ok")
            summary.append(f"{path} {walls[len(walls) // 2]:.3f}s" if walls else f"{path} failed")
        log(f"{rate_label(rate):8} {query.name:32} warm medians: {', '.join(summary)}")

    def run_streams(self, queries, rate, round_index):
        by_name = {query.name: query for query in queries}
        streams = workloads.concurrency_streams(by_name, self.args.streams)
        if not streams or not streams[0]:
            return
        for path in self.rotated(round_index):
            catalog, schema = CATALOGS[path]
            results = []
            lock = threading.Lock()

            def stream(number, stream_queries):
                for position, query in enumerate(stream_queries):
                    started = time.monotonic()
                    try:
                        result = self.trino.execute(query.sql, catalog, schema)
                        difference = self._check(query, path, result)
                        status, detail = ("mismatch", difference) if difference else ("ok", "")
                    except (QueryError, OSError) as exception:
                        status, detail = "error", str(exception).splitlines()[0][:300]
                    with lock:
                        results.append({"rate": rate_label(rate), "rate_bits": rate, "path": path, "stream": number,
                                        "position": position, "query": query.name, "status": status, "detail": detail,
                                        "wall_s": round(time.monotonic() - started, 3)})

            evict_page_cache(self.cluster.data_directories(path))
            rx_before, tx_before = self.link.counters()
            cpu_before = self.meter.snapshot()
            started = time.monotonic()
            threads = [threading.Thread(target=stream, args=(number, order)) for number, order in enumerate(streams)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            makespan = time.monotonic() - started
            rx_after, tx_after = self.link.counters()
            cpu = CpuMeter.delta(cpu_before, self.meter.snapshot())
            self.stream_records += results
            ok = [r for r in results if r["status"] == "ok"]
            record = {"testbed": self.mode, "rate": rate_label(rate), "rate_bits": rate, "path": path, "streams": len(streams),
                      "queries": len(results), "ok": len(ok), "failed": len(results) - len(ok),
                      "makespan_s": round(makespan, 3),
                      "queries_per_hour": round(len(ok) / makespan * 3600, 1) if len(ok) == len(results) else "",
                      "link_rx_bytes": rx_after - rx_before, "link_tx_bytes": tx_after - tx_before,
                      "storage_cpu_s": round(sum(cpu[s.name] for s in self._storage_services(path)), 3),
                      "trino_process_cpu_s": cpu["trino"]}
            self.concurrency.append(record)
            log(f"{rate_label(rate):8} {len(streams)} streams on {path}: {len(ok)}/{len(results)} queries in {makespan:.1f} s"
                + (f" = {record['queries_per_hour']} queries/hour" if record["queries_per_hour"] else " (failures: no throughput)"))

    def calibrate(self, rate):
        measured = self.link.measure_throughput()
        host_qdisc, ns_qdisc = self.link.qdiscs()
        self.calibration.append({"rate": rate_label(rate), "rate_bits": rate, "tcp_bits_per_s": round(measured),
                                 "fraction_of_rate": round(measured / rate, 3), "qdisc_host": host_qdisc, "qdisc_ns": ns_qdisc})
        log(f"link at {rate_label(rate)}: one TCP stream gets {measured / 1e9:.3f} Gbit/s ({measured / rate:.1%})")

    def profile(self, queries, rate):
        """JFR recordings of Trino and the path's storage-side JVMs while each named query runs
        over and over for --profile-seconds (at least --repeat times), summarised per process
        (profile_summary.py: CPU samples by component, hottest methods). The recordings stay in
        the run directory; the summaries go to the results."""
        names = [name.strip() for name in self.args.profile.split(",") if name.strip()]
        by_name = {query.name: query for query in queries}
        summaries = os.path.join(self.out, "profiles")
        recordings = os.path.join(self.settings.run_dir, "profiles")
        os.makedirs(summaries, exist_ok=True)
        os.makedirs(recordings, exist_ok=True)
        for name in names:
            query = by_name.get(name)
            if query is None:
                log(f"--profile: no query named '{name}' ran")
                continue
            for path in self.args.path_list:
                services = [self.cluster.services["trino"]] + self._storage_services(path)
                label = f"{rate_label(rate)}-{name.replace(' ', '_').replace('%', 'pct')}-{path}"
                for service in services:
                    run(["jcmd", str(service.pid), "JFR.start", f"name=bench-{label}", "settings=profile"], check=False)
                started, attempt = time.monotonic(), 0
                while attempt < self.args.repeat or time.monotonic() - started < self.args.profile_seconds:
                    attempt += 1
                    self.measure(query, path, rate, f"profile{attempt}")
                for service in services:
                    recording = os.path.join(recordings, f"{label}-{service.name}.jfr")
                    run(["jcmd", str(service.pid), "JFR.stop", f"name=bench-{label}", f"filename={recording}"], check=False)
                    if not os.path.exists(recording):
                        log(f"--profile: no recording of {service.name}")
                        continue
                    summary = os.path.join(summaries, f"{label}-{service.name}.txt")
                    with open(summary, "w") as file:
                        file.write(f"{query.name} on {path}, {attempt} runs in {time.monotonic() - started:.1f} s at {rate_label(rate)}; "
                                   f"process {service.name}\n\n")
                        file.write(profile_summary.summarize(recording).replace(recording, os.path.basename(recording)))
                    self.profiles.append({"query": name, "path": path, "process": service.name, "runs": attempt,
                                          "summary": os.path.relpath(summary, self.out)})
                log(f"profiled {name} on {path}: {attempt} runs")

    def run_all(self):
        queries = self.queries()
        rates = [parse_rate(rate) for rate in self.args.rate_list]
        for rate_index, rate in enumerate(rates):
            self.link.shape(rate)
            self.calibrate(rate)
            if rate_index == 0 and not self.args.no_warmup:
                started = time.monotonic()
                self.warmup(queries, rate)
                self.step(f"warm-up ({self.args.warmup_passes} pass{'es' if self.args.warmup_passes != 1 else ''} of every query on every path)", started)
            started = time.monotonic()
            for index, query in enumerate(queries):
                self.run_query(query, index, rate)
            self.step(f"queries at {rate_label(rate)}", started)
            if "concurrency" in self.args.workload_list:
                started = time.monotonic()
                self.run_streams(queries, rate, rate_index)
                self.step(f"{self.args.streams} concurrent streams at {rate_label(rate)}", started)
        if self.args.profile:
            # where the targets are set, if that rate ran
            rate = parse_rate(report.TARGET_RATE) if parse_rate(report.TARGET_RATE) in rates else rates[0]
            self.link.shape(rate)
            started = time.monotonic()
            self.profile(queries, rate)
            self.step("JFR profiles", started)

    def teardown(self):
        # each step even when one before it failed: nothing the run made outlives it
        try:
            if self.cluster is not None:
                self.cpu_sets_at_end = self.read_cpu_sets()
                self.cluster.stop()
                if not self.args.keep:
                    self.cluster.remove_data()
        finally:
            try:
                if self.placement is not None:
                    self.placement.remove()  # after the processes in its cgroups are gone
            finally:
                self.link.remove()


def write_results(bench, out, facts, sampler, started_wall, finished):
    os.makedirs(out, exist_ok=True)
    report.write_csv(os.path.join(out, "runs.csv"), bench.records)
    report.write_csv(os.path.join(out, "streams.csv"), bench.stream_records)
    report.write_csv(os.path.join(out, "concurrency.csv"), bench.concurrency)
    report.write_csv(os.path.join(out, "link.csv"), bench.calibration)
    loads = [load for _, load, _ in sampler.samples]
    busy = [value for _, _, value in sampler.samples]
    facts.update({
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(started_wall)),
        "duration_s": round(time.time() - started_wall, 1),
        "finished": finished,
        **testbed_facts_at_end(bench),
        "steps": bench.steps,
        "load_average_1m": {"mean": round(sum(loads) / len(loads), 2), "max": max(loads)} if loads else {},
        "machine_busy_fraction": {"mean": round(sum(busy) / len(busy), 3), "max": max(busy)} if busy else {},
        "other_processes_at_end": other_activity(exclude=[service.pid for service in bench.cluster.services.values()] if bench.cluster else []),
        "profiles": bench.profiles,
        "services_peak_rss_mb": ({service.name: service.peak_rss_mb() for service in bench.cluster.services.values()}
                                 if bench.cluster else {}),
    })
    with open(os.path.join(out, "environment.json"), "w") as file:
        json.dump(facts, file, indent=2)
        file.write("\n")


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if os.geteuid() != 0:
        sys.exit("bench: needs root (it creates a network namespace and shapes its link with tc)")
    settings = Settings(args)
    args.out = os.path.abspath(args.out or os.path.join(settings.nsc_var, "bench", "results"))
    random.seed(13)

    # SIGTERM and SIGHUP end the run as Ctrl-C does: through the finally below
    def interrupted(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGHUP, interrupted)

    failed = False
    for mode in args.testbed_list:
        # both testbeds: one subfolder each, so each keeps the files report.py renders
        out = args.out if len(args.testbed_list) == 1 else os.path.join(args.out, mode)
        finished, failures = run_testbed(args, settings, mode, out)
        failed = failed or failures or not finished
        if not finished:
            break  # interrupted or broken: the next testbed would not run either
    if failed:
        sys.exit(1)


def run_testbed(args, settings, mode, out):
    """The whole selected workload on one testbed, built for it and removed after it (each
    testbed starts its JVMs afresh: a JVM sizes its thread pools by the CPUs it starts on).
    Returns (finished, failures)."""
    log(f"testbed {mode}" + (f": storage side on CPUs {cpusets.format_cpu_list(args.cpu_sets['storage'])}, "
                             f"Trino on CPUs {cpusets.format_cpu_list(args.cpu_sets['trino'])}" if mode == "split" else
                             ": every process on every CPU"))
    settled = wait_until_quiet(args.settle)
    facts = machine_facts(args, settings, mode)
    facts["waited_for_quiet_s"] = settled
    bench = Bench(args, settings, mode, out)
    sampler = LoadSampler()
    sampler.start()
    started_wall = time.time()
    finished = False
    try:
        bench.setup()
        bench.run_all()
        finished = True
    except KeyboardInterrupt:
        log("interrupted: removing the testbed; the results so far are written")
    finally:
        bench.teardown()
        sampler.stop()
        write_results(bench, out, facts, sampler, started_wall, finished)
    summary = report.render(out)
    print(summary, flush=True)
    log(f"results: {out} (report.html, runs.csv, concurrency.csv, streams.csv, link.csv, environment.json, summary.txt)")
    failures = [r for r in bench.records + bench.stream_records if r["status"] != "ok"]
    return finished, bool(failures)


if __name__ == "__main__":
    main()
