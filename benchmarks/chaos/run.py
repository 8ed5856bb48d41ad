#!/usr/bin/env python3
"""A chaos run: TPC-H streams against nsc while its components are killed and its data damaged.

On the process cluster with its catalog in PostgreSQL (two metadata services, three storage
nodes, replication 2: ./nsc demo --catalog postgresql), --streams concurrent streams run the
22 TPC-H queries, each stream in its own shuffled order, over and over for --minutes, and every
answer is compared with the answer of Trino's own tpch catalog at the same scale. Meanwhile:

- every 60 to 120 s a random storage node is SIGKILLed and started again 10 to 60 s later (a node
  down longer than the replica-loss timeout, 45 s here, has its files copied elsewhere, and its
  surplus replicas trimmed when it is back);
- every 4 to 6 minutes a metadata service is SIGKILLed and started again 15 s later;
- every 3 to 5 minutes one byte of a random replica on a random storage node is flipped in place
  (the node's checksums must notice it when the replica is read or scrubbed, quarantine it, and
  the metadata service copy the file again from a good replica).

After the last fault every component is started, and the run waits until every flipped replica
has left its place (quarantined) and the metadata service reports no under-replicated,
unavailable or in-flight file: the time from the last fault to then is "time to full
replication". Then the 22 queries run once more in each of the pushdown modes raw and filter.

Reported: queries run, answered right, failed (with their errors, grouped), wrong answers (the
run fails if any), the faults with their times, and the time to full replication.

    python3 benchmarks/chaos/run.py --minutes 20 --streams 8 --scale 1 --out benchmarks/chaos/results/sf1

The cluster has its own NSC_VAR (var/bench-chaos) and ports (37070.., PostgreSQL 37432, Trino
38080), so a running demo is left alone. Standard library only.
"""
import argparse
import collections
import csv
import heapq
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "side-by-side"))
import compare  # noqa: E402
import machine  # noqa: E402
from nsc_metrics import component_pid, service_http_port, service_metrics  # noqa: E402
from trino_client import run_query, write_csv  # noqa: E402
from workloads import tpch_queries  # noqa: E402

HOME = os.path.dirname(os.path.dirname(HERE))
NSC_VAR = os.path.join(HOME, "var", "bench-chaos")
PORT_BASE = 37070
TRINO = "http://127.0.0.1:38080"
STORAGE_NODES = [f"storage-{number}" for number in (1, 2, 3)]
METADATA_SERVICES = ["metadata-1", "metadata-2"]
LOSS_TIMEOUT = "45s"
ENVIRONMENT = {
    "NSC_VAR": NSC_VAR, "NSC_PORT_BASE": str(PORT_BASE), "NSC_POSTGRESQL_PORT": "37432",
    "NSC_REPLICA_LOSS_TIMEOUT": LOSS_TIMEOUT, "NSC_REPLICATION_CHECK_INTERVAL": "5s",
    # scrub often, so a flipped byte in a replica no query reads is found within minutes too
    "NSC_SCRUB_INTERVAL": "2m",
}


def nsc(*args, check=True):
    return subprocess.run([os.path.join(HOME, "nsc"), *args], env={**os.environ, **ENVIRONMENT}, check=check,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def running(pid):
    """A SIGKILLed process is a zombie until its parent reaps it: that is not running."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            return not file.read().rsplit(") ", 1)[1].startswith("Z")
    except (FileNotFoundError, TypeError):
        return False


def replicas(node):
    """The Parquet files a storage node holds in its data directories (not its quarantine)."""
    root = os.path.join(NSC_VAR, "cluster", node)
    found = []
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = [name for name in subdirectories if name not in ("quarantine", "log", "etc", "tmp")]
        found.extend(os.path.join(directory, name) for name in files if name.endswith(".parquet"))
    return found


class FaultLog:
    def __init__(self):
        self.started = time.monotonic()
        self.records = []
        self.lock = threading.Lock()

    def add(self, kind, target, detail=""):
        with self.lock:
            record = {"seconds": round(time.monotonic() - self.started, 1), "fault": kind, "target": target, "detail": detail}
            self.records.append(record)
        print(f"[{record['seconds']:7.1f} s] {kind} {target} {detail}", flush=True)


class Faults:
    """One thread: faults and restarts from a queue of timed events, one at a time, so two
    ./nsc start never race over the same cluster."""

    def __init__(self, log, deadline, seed):
        self.log = log
        self.deadline = deadline
        self.random = random.Random(seed)
        self.events = []
        # (path, inode) of each damaged replica: quarantine moves that inode away, and a repair may
        # later put a good copy of the same file at the same path
        self.flipped = []
        self.last_fault = None
        now = time.monotonic()
        self.schedule(now + self.random.uniform(60, 120), "kill-storage")
        self.schedule(now + self.random.uniform(150, 210), "kill-metadata")
        self.schedule(now + self.random.uniform(90, 150), "flip-byte")

    def schedule(self, at, action, target=None):
        heapq.heappush(self.events, (at, action, target or ""))

    def run(self, stopping):
        while self.events and not stopping.is_set():
            at, action, target = self.events[0]
            if at > time.monotonic():
                stopping.wait(min(at - time.monotonic(), 1.0))
                continue
            heapq.heappop(self.events)
            if action.startswith("restart"):
                self.restart(target)
            elif time.monotonic() < self.deadline:
                getattr(self, action.replace("-", "_"))()

    def kill(self, component):
        pid = component_pid(NSC_VAR, component)
        if not running(pid):
            return False
        os.kill(pid, signal.SIGKILL)
        self.last_fault = time.monotonic()
        return True

    def kill_storage(self):
        down = [node for node in STORAGE_NODES if not running(component_pid(NSC_VAR, node))]
        # at most one storage node down at a time: with replication 2, two down lose files for a while
        candidates = [node for node in STORAGE_NODES if node not in down] if not down else []
        if candidates:
            victim = self.random.choice(candidates)
            if self.kill(victim):
                down_for = self.random.uniform(10, 60)
                self.log.add("SIGKILL", victim, f"restart in {down_for:.0f} s")
                self.schedule(time.monotonic() + down_for, "restart", victim)
        self.schedule(time.monotonic() + self.random.uniform(60, 120), "kill-storage")

    def kill_metadata(self):
        alive = [service for service in METADATA_SERVICES if running(component_pid(NSC_VAR, service))]
        if len(alive) == len(METADATA_SERVICES):
            victim = self.random.choice(alive)
            if self.kill(victim):
                self.log.add("SIGKILL", victim, "restart in 15 s")
                self.schedule(time.monotonic() + 15, "restart", victim)
        self.schedule(time.monotonic() + self.random.uniform(240, 360), "kill-metadata")

    def flip_byte(self):
        node = self.random.choice(STORAGE_NODES)
        flipped_paths = {path for path, _ in self.flipped}
        files = [path for path in replicas(node) if path not in flipped_paths and os.path.getsize(path) > 16]
        if files:
            path = self.random.choice(files)
            size = os.path.getsize(path)
            # past the leading magic and before the footer's length and magic
            offset = self.random.randrange(4, size - 8)
            with open(path, "r+b") as file:
                file.seek(offset)
                value = file.read(1)[0]
                file.seek(offset)
                file.write(bytes([value ^ (1 << self.random.randrange(8))]))
            self.flipped.append((path, os.stat(path).st_ino))
            self.last_fault = time.monotonic()
            self.log.add("flip-byte", node, f"{os.path.relpath(path, NSC_VAR)} offset {offset} of {size}")
        self.schedule(time.monotonic() + self.random.uniform(180, 300), "flip-byte")

    def restart(self, component):
        result = nsc("start", component, check=False)
        self.log.add("start", component, "" if result.returncode == 0 else f"FAILED: {result.stderr.strip()[-300:]}")


class QueryLog:
    """Every query's record, appended to <out>-queries.csv as it ends, so a run that stops early
    still leaves what it saw."""

    FIELDS = ["seconds", "user", "query", "session", "outcome", "wall_seconds", "detail"]

    def __init__(self, path, header):
        self.records = []
        self.lock = threading.Lock()
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self.file = open(path, "w", newline="")
        self.file.writelines(line + "\n" for line in header)
        self.writer = csv.DictWriter(self.file, fieldnames=self.FIELDS)
        self.writer.writeheader()

    def add(self, record):
        with self.lock:
            self.records.append(record)
            self.writer.writerow(record)
            self.file.flush()


class Streams:
    def __init__(self, queries, expected, deadline, count, seed, log):
        self.queries = queries
        self.expected = expected
        self.deadline = deadline
        self.count = count
        self.seed = seed
        self.log = log
        self.started = time.monotonic()

    def stream(self, number):
        order = list(self.queries)
        shuffler = random.Random(self.seed + number)
        while time.monotonic() < self.deadline:
            shuffler.shuffle(order)
            for query in order:
                if time.monotonic() >= self.deadline:
                    return
                self.log.add(run_one(query, self.expected[query.name], f"stream{number}", None, self.started))

    def run(self):
        threads = [threading.Thread(target=self.stream, args=(number,), name=f"stream-{number}") for number in range(1, self.count + 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()


def run_one(query, expected, user, session, started):
    began = time.monotonic()
    record = {"seconds": round(began - started, 1), "user": user, "query": query.name, "session": session or "",
              "outcome": "right", "wall_seconds": 0.0, "detail": ""}
    try:
        _, rows, wall = run_query(TRINO, user, query.sql, session=session, catalog="nsc", schema="tpch")
        record["wall_seconds"] = round(wall, 3)
        difference = compare.compare(expected, rows)
        if difference:
            record.update(outcome="WRONG", detail=difference[:500])
    except Exception as error:  # noqa: BLE001 - every failure is recorded with its message
        record.update(outcome="failed", wall_seconds=round(time.monotonic() - began, 3), detail=str(error)[:500])
    return record


def tpch_schema(scale):
    return "tiny" if float(scale) == 0.01 else f"sf{scale}"


def expected_answers(queries, scale):
    """Trino's tpch catalog's answers, kept in the cluster's directory: the catalog generates its
    rows anew for every query, minutes for the 22 at scale 1."""
    saved = os.path.join(NSC_VAR, f"tpch-answers-{scale}.json")
    if os.path.exists(saved):
        with open(saved) as file:
            answers = json.load(file)
        if all(query.name in answers for query in queries):
            return answers
    answers = {}
    for query in queries:
        _, rows, _ = run_query(TRINO, "chaos", query.sql, catalog="tpch", schema=tpch_schema(scale))
        answers[query.name] = rows
    with open(saved, "w") as file:
        json.dump(answers, file)
    return answers


def metadata_metrics():
    """Both metadata services' counters, summed (each counts what it did since its last start; the
    catalog's gauges are the replication monitor's, zero on a service that does not run it), and
    how many services answered; (None, 0) when neither did."""
    totals, answering = None, 0
    for service in METADATA_SERVICES:
        try:
            metrics = collections.Counter(service_metrics(NSC_VAR, service_http_port(service, PORT_BASE)))
        except OSError:
            continue
        answering += 1
        totals = metrics if totals is None else totals + metrics
    return totals, answering


def still_in_place(flipped):
    """The damaged replicas still served from where they were damaged."""
    left = []
    for path, inode in flipped:
        try:
            if os.stat(path).st_ino == inode:
                left.append(os.path.relpath(path, NSC_VAR))
        except FileNotFoundError:
            pass
    return left


def wait_for_full_replication(faults, timeout):
    """Seconds from the last fault until every flipped replica is gone from its place and the
    catalog has no file short of replicas, none unavailable and no copy in flight."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        metrics, answering = metadata_metrics()
        left = still_in_place(faults.flipped)
        if (metrics is not None and not left and metrics["under_replicated_files"] == 0 and metrics["unavailable_files"] == 0
                and metrics["copies_in_flight"] == 0 and answering == len(METADATA_SERVICES)):
            return time.monotonic() - (faults.last_fault or time.monotonic()), metrics
        time.sleep(1)
    raise RuntimeError(f"not fully replicated {timeout} s after the last fault: damaged replicas still served "
                       f"{still_in_place(faults.flipped)}, metadata metrics {metadata_metrics()[0]}")


def storage_counters():
    totals = collections.Counter()
    for node in STORAGE_NODES:
        metrics = service_metrics(NSC_VAR, service_http_port(node, PORT_BASE))
        for name in ("corrupt_reads", "corrupt_scans", "files_quarantined", "scrub_damaged_found"):
            totals[name] += metrics.get(name, 0)
    return totals


def summary_lines(args, records, final_records, faults, replicated, metrics, counters):
    outcomes = collections.Counter(record["outcome"] for record in records)
    lines = [f"streams: {args.streams} x the 22 TPC-H queries for {args.minutes} minutes at scale {args.scale}, "
             f"default session (nsc.pushdown=auto)",
             f"queries run: {len(records)}; right: {outcomes['right']}; failed: {outcomes['failed']}; "
             f"wrong answers: {outcomes['WRONG']}"]
    failures = collections.Counter(record["detail"].split("\n")[0][:160] for record in records if record["outcome"] == "failed")
    lines.extend(f"  failed {count}x: {reason}" for reason, count in failures.most_common())
    lines.extend(f"  WRONG {record['query']} ({record['user']} at {record['seconds']} s): {record['detail']}"
                 for record in records if record["outcome"] == "WRONG")
    kinds = collections.Counter(f"{record['fault']} {record['target'].split('-')[0]}" for record in faults.log.records)
    lines.append("faults: " + ", ".join(f"{count} x {kind}" for kind, count in sorted(kinds.items())))
    lines.append(f"time to full replication after the last fault: {replicated} (replica-loss timeout {LOSS_TIMEOUT}; "
                 f"bytes flipped in {len(faults.flipped)} replicas, still served at the end: {len(still_in_place(faults.flipped))})")
    if metrics:
        lines.append("metadata services at the end (summed; counters since each one's last start): " + ", ".join(
            f"{name} {metrics[name]}" for name in ("under_replicated_files", "unavailable_files", "copies_in_flight",
                                                     "copies_completed", "copies_failed", "damaged_replicas_reported")))
    lines.append("storage counters since each node's last start: " + ", ".join(f"{k} {v}" for k, v in sorted(counters.items())))
    final = collections.Counter((record["session"], record["outcome"]) for record in final_records)
    lines.append("after the faults, 22 queries per mode: " + ", ".join(f"{session} {outcome} {count}" for (session, outcome), count in sorted(final.items())))
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=20)
    parser.add_argument("--streams", type=int, default=8)
    parser.add_argument("--scale", default="1")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", action="store_true", help="leave the cluster running")
    parser.add_argument("--out", required=True, help="prefix of the result files: <out>.txt, -queries.csv, -faults.csv")
    args = parser.parse_args()
    if args.minutes <= 0 or args.streams < 1:
        parser.error("--minutes must be positive and --streams at least 1")

    command = "python3 benchmarks/chaos/run.py " + " ".join(sys.argv[1:])
    load_at_start = machine.load_average()
    header = machine.header_lines(command, load_at_start)
    queries = tpch_queries()
    log = FaultLog()
    query_log = None
    replicated = "not measured: the run stopped before"
    metrics, counters = None, collections.Counter()
    try:
        nsc("demo", "--catalog", "postgresql", "--scale", args.scale, "--trino-port", "38080")
        print(f"cluster up; the expected answers from tpch.{tpch_schema(args.scale)}", flush=True)
        expected = expected_answers(queries, args.scale)
        query_log = QueryLog(f"{args.out}-queries.csv", header)
        deadline = time.monotonic() + args.minutes * 60
        log.started = time.monotonic()
        faults = Faults(log, deadline, args.seed)
        stopping = threading.Event()
        fault_thread = threading.Thread(target=faults.run, args=(stopping,), name="faults")
        fault_thread.start()
        streams = Streams(queries, expected, deadline, args.streams, args.seed, query_log)
        try:
            streams.run()
        finally:
            stopping.set()
            fault_thread.join()
        print("streams done; starting every component and waiting for full replication", flush=True)
        nsc("start")
        try:
            seconds, metrics = wait_for_full_replication(faults, timeout=1800)
            replicated = f"{seconds:.1f} s"
        except RuntimeError as error:
            replicated = f"NOT REACHED: {error}"
        for mode in ("raw", "filter"):
            for query in queries:
                query_log.add(run_one(query, expected[query.name], "after", f"nsc.pushdown={mode}", streams.started))
        counters = storage_counters()
        metrics, _ = metadata_metrics()
    finally:
        if not args.keep:
            nsc("stop", check=False)
        # the commit the cluster was built from, as at the start; the load average now
        header = header[:2] + machine.header_lines(command, load_at_start)[2:]
        write_csv(f"{args.out}-faults.csv", log.records or [{"seconds": "", "fault": "", "target": "", "detail": ""}], header)

    records = query_log.records
    during = [record for record in records if record["user"] != "after"]
    after = [record for record in records if record["user"] == "after"]
    lines = header + summary_lines(args, during, after, faults, replicated, metrics, counters)
    with open(f"{args.out}.txt", "w") as out:
        out.writelines(line + "\n" for line in lines)
    print("\n".join(lines))
    wrong = sum(record["outcome"] == "WRONG" for record in records)
    after_failed = sum(record["outcome"] != "right" for record in after)
    if wrong or after_failed or replicated.startswith("NOT"):
        sys.exit(f"{wrong} wrong answers, {after_failed} of the queries after the faults did not answer right, "
                 f"full replication: {replicated}")

if __name__ == "__main__":
    main()
