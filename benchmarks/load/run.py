#!/usr/bin/env python3
"""Many heavy queries at once against one Trino: does the server live, and does every query
answer, queue or fail with a clear error?

N clients, each a Trino user of its own (user01, user02, ...), submit the same heavy query at
the same moment through Trino's REST API and follow it to the end. Meanwhile a monitor samples
the Trino JVM every few seconds: used heap (jcmd GC.heap_info), resident memory, and the
cluster's running, queued and blocked queries and reserved memory (/v1/cluster); when the used
heap reaches a new peak it takes a class histogram of the live objects (jcmd
GC.class_histogram, at most one per --histogram-interval seconds), so the result shows what
filled the heap. After the run it looks for the JVM's end: whether the process still runs and
whether its logs say OutOfMemoryError.

Workloads (the catalog's tpch schema, scale 1):
  groupby  SELECT l_orderkey, l_partkey, count(*), sum(l_extendedprice) FROM lineitem
           GROUP BY 1, 2 ORDER BY 4 DESC LIMIT 5   (6 M groups: a large hash table per query)
  like     SELECT count(*), sum(l_quantity) FROM lineitem WHERE l_comment LIKE '%special%requests%'

    ./nsc demo --scale 1    (with a hive catalog over the same files: see benchmarks/load/README.md)
    python3 benchmarks/load/run.py --catalog nsc --workload groupby --clients 32 --out benchmarks/load/results/NAME

Writes NAME.csv (a row per query) and NAME.txt (the machine, Trino's memory settings, the
outcome, the peaks and the histogram at the peak, and whether each storage node lived: the same
process, no OutOfMemoryError in its logs, its peak resident memory and what its memory pool
refused). Exits 1 when the Trino server or a storage node died.
Standard library only; talks to 127.0.0.1 only.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import machine  # noqa: E402
from nsc_metrics import component_pid, service_http_port, service_metrics  # noqa: E402
from trino_client import request, write_csv  # noqa: E402

HOME = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

WORKLOADS = {
    "groupby": "SELECT l_orderkey, l_partkey, count(*), sum(l_extendedprice) FROM lineitem "
               "GROUP BY 1, 2 ORDER BY 4 DESC LIMIT 5",
    "like": "SELECT count(*), sum(l_quantity) FROM lineitem WHERE l_comment LIKE '%special%requests%'",
}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default="http://127.0.0.1:8080", help="Trino's HTTP address (loopback only)")
    parser.add_argument("--catalog", default="nsc", help="catalog whose tpch schema holds lineitem (nsc, hive, tpch)")
    parser.add_argument("--schema", default="tpch", help="schema of lineitem [tpch]")
    parser.add_argument("--workload", choices=sorted(WORKLOADS), default="groupby")
    parser.add_argument("--clients", type=int, default=32, help="queries submitted at once, one user each [32]")
    parser.add_argument("--session", default="", help="session properties for every query, like nsc.pushdown=filter")
    parser.add_argument("--var", default=os.path.join(HOME, "var"), help="the cluster's NSC_VAR [./var]")
    parser.add_argument("--deadline", type=float, default=1800, help="seconds after which the run stops waiting [1800]")
    parser.add_argument("--sample-interval", type=float, default=2.0, help="seconds between monitor samples [2]")
    parser.add_argument("--histogram-interval", type=float, default=20.0,
                        help="at most one class histogram per this many seconds, at a new heap peak [20]")
    parser.add_argument("--out", required=True, help="result path without extension")
    args = parser.parse_args()
    if not 1 <= args.clients <= 256:
        parser.error(f"--clients must be from 1 to 256, got {args.clients}")
    if not re.match(r"^https?://(127\.\d+\.\d+\.\d+|localhost)(:\d+)?$", args.server):
        parser.error(f"--server must be a loopback address, got {args.server}")
    return args


# --- the machine ------------------------------------------------------------------------------

# --- the Trino server -------------------------------------------------------------------------

def trino_pid(var):
    try:
        with open(os.path.join(var, "cluster", "state", "trino.pid")) as file:
            pid = int(file.read().strip())
    except (OSError, ValueError):
        raise SystemExit(f"load: no running Trino of a cluster under {var} (start one with ./nsc demo)")
    return pid


def alive(pid):
    """Whether the process runs: a zombie, or one that is writing its heap dump after an
    OutOfMemoryError, has ended as far as its queries are concerned (the latter is caught by the logs)."""
    try:
        with open(f"/proc/{pid}/status") as file:
            return not any(line.startswith("State:") and "Z" in line.split()[1] for line in file)
    except OSError:
        return False


def answers(server):
    try:
        return not request(server + "/v1/info", "load-monitor", timeout=10).get("starting", True)
    except (OSError, ValueError, urllib.error.URLError):
        return False


def jcmd():
    java_home = os.environ.get("JAVA_HOME") or "/usr/lib/jvm/temurin-25-jdk-amd64"
    return os.path.join(java_home, "bin", "jcmd")


def used_heap_bytes(pid):
    """The used heap G1 reports ('garbage-first heap total ..., used 123456K'), or None."""
    output = subprocess.run([jcmd(), str(pid), "GC.heap_info"], capture_output=True, text=True, timeout=30).stdout
    match = re.search(r"heap\s+total[^,]*,\s*committed\s*\d+K,\s*used\s*(\d+)K", output)
    if not match:
        match = re.search(r"used\s+(\d+)K", output)
    return int(match.group(1)) * 1024 if match else None


def resident_bytes(pid):
    try:
        with open(f"/proc/{pid}/status") as file:
            for line in file:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def class_histogram(pid, rows=25):
    """The live objects by class, largest first (a full GC runs before it counts)."""
    output = subprocess.run([jcmd(), str(pid), "GC.class_histogram"], capture_output=True, text=True, timeout=120).stdout
    lines = [line for line in output.splitlines() if re.match(r"^\s*(\d+:\s|Total)", line)]
    return lines[:rows] + [line for line in lines if line.strip().startswith("Total")]


def trino_settings(var):
    """The memory settings Trino runs with, as its configuration files say."""
    etc = os.path.join(var, "cluster", "trino", "etc")
    keys = ("query.max-memory", "memory.", "query.low-memory", "spill", "resource-groups", "task.", "exchange.", "sink.")
    settings = []
    for name in ("jvm.config", "config.properties", "resource-groups.properties"):
        try:
            with open(os.path.join(etc, name)) as file:
                for line in file:
                    line = line.strip()
                    if name == "jvm.config" and line.startswith(("-Xmx", "-XX:G1HeapRegionSize", "-XX:+ExitOnOutOfMemory")):
                        settings.append(line)
                    elif name != "jvm.config" and line.startswith(keys):
                        settings.append(line)
        except OSError:
            pass
    return settings


def log_sizes(var, component="trino"):
    """Each of a component's logs' size now, so that only what this run adds is searched afterwards."""
    log_dir = os.path.join(var, "cluster", component, "log")
    names = sorted(os.listdir(log_dir)) if os.path.isdir(log_dir) else []
    return {os.path.join(log_dir, name): os.path.getsize(os.path.join(log_dir, name)) for name in names}


def oom_in_logs(var, sizes_at_start, component="trino"):
    hits = []
    for path in log_sizes(var, component):
        name = os.path.basename(path)
        try:
            with open(path, errors="replace") as file:
                file.seek(sizes_at_start.get(path, 0))
                for line in file:
                    if "OutOfMemoryError" in line:
                        hits.append(f"{name}: {line.strip()[:200]}")
                        break
        except OSError:
            pass
    return hits


class Monitor(threading.Thread):
    """Samples the Trino JVM and the cluster until stopped; keeps the peaks and the histogram taken at the heap's peak."""

    def __init__(self, args, pid):
        super().__init__(daemon=True)
        self.args = args
        self.pid = pid
        self.stopped = threading.Event()
        self.peak_heap = 0
        self.peak_resident = 0
        self.peak_reserved = 0
        self.peak_running = 0
        self.peak_queued = 0
        self.peak_blocked = 0
        self.histogram = []
        self.histogram_heap = 0
        self.died_at = None
        self.started = time.monotonic()
        self._last_histogram = 0.0

    def run(self):
        while not self.stopped.wait(self.args.sample_interval):
            if not alive(self.pid):
                self.died_at = time.monotonic() - self.started
                return
            self._sample()

    def _sample(self):
        try:
            heap = used_heap_bytes(self.pid)
        except (subprocess.SubprocessError, OSError):
            heap = None
        self.peak_resident = max(self.peak_resident, resident_bytes(self.pid) or 0)
        try:
            pool = request(self.args.server + "/v1/status", "load-monitor", timeout=10)["memoryInfo"]["pool"]
            self.peak_reserved = max(self.peak_reserved, int(pool["reservedBytes"]) + int(pool["reservedRevocableBytes"]))
            states = [query["state"] for query in request(self.args.server + "/v1/query", "load-monitor", timeout=10)]
            self.peak_running = max(self.peak_running, states.count("RUNNING"))
            self.peak_queued = max(self.peak_queued, states.count("QUEUED"))
            blocked = [query for query in request(self.args.server + "/v1/query?state=RUNNING", "load-monitor", timeout=10)
                       if query.get("queryStats", {}).get("fullyBlocked")]
            self.peak_blocked = max(self.peak_blocked, len(blocked))
        except (OSError, ValueError, KeyError, urllib.error.URLError):
            pass
        if heap is None or heap <= self.peak_heap:
            return
        self.peak_heap = heap
        now = time.monotonic()
        if now - self._last_histogram >= self.args.histogram_interval and heap > self.histogram_heap * 1.05:
            self._last_histogram = now
            try:
                self.histogram = class_histogram(self.pid)
                self.histogram_heap = heap
            except (subprocess.SubprocessError, OSError):
                pass


# --- the storage nodes -----------------------------------------------------------------------

STORAGE_NODES = ("storage-1", "storage-2", "storage-3")
# the cluster's port base, as ./nsc reads it
PORT_BASE = int(os.environ.get("NSC_PORT_BASE", "7070"))
STORAGE_COUNTERS = ("memory_pool_max_bytes", "memory_pool_peak_reserved_bytes", "memory_pool_refused",
                    "scans_refused_busy", "scans_completed")


def peak_resident_bytes(pid):
    """The process's resident high-water mark since it started (VmHWM)."""
    match = re.search(r"VmHWM:\s+(\d+) kB", machine.read_text(f"/proc/{pid}/status"))
    return int(match.group(1)) * 1024 if match else 0


def storage_state(var):
    """Per storage node: its pid, its log sizes and its counters, before the run."""
    state = {}
    for node in STORAGE_NODES:
        pid = component_pid(var, node)
        try:
            counters = service_metrics(var, service_http_port(node, PORT_BASE))
        except OSError:
            counters = {}
        state[node] = {"pid": pid, "logs": log_sizes(var, node), "counters": counters}
    return state


def storage_lines(var, before):
    """Whether each storage node lived through the run (same process, no OutOfMemoryError logged)
    and what its memory pool saw."""
    lines, exits = [], 0
    for node in STORAGE_NODES:
        pid = before[node]["pid"]
        same = pid is not None and alive(pid) and component_pid(var, node) == pid
        oom = oom_in_logs(var, before[node]["logs"], node)
        exits += 0 if same and not oom else 1
        try:
            after = service_metrics(var, service_http_port(node, PORT_BASE))
        except OSError:
            after = {}
        changes = ", ".join(f"{name} {after.get(name, 0) - (0 if name.endswith(('_max_bytes', '_peak_reserved_bytes')) else before[node]['counters'].get(name, 0))}"
                            for name in STORAGE_COUNTERS)
        lines.append(f"  {node}: {'lived' if same else 'EXITED or restarted'}"
                     + (f", OutOfMemoryError: {'; '.join(oom)}" if oom else "")
                     + f", peak resident {peak_resident_bytes(pid) / 2**20:.0f} MiB since its start; {changes}")
    return [f"storage node exits: {exits}"] + lines, exits


# --- the clients ------------------------------------------------------------------------------

def follow(args, user, sql, record, deadline):
    """Runs one query to its end, recording its final state, queued and elapsed time, and error."""
    started = time.monotonic()
    record.update({"user": user, "state": "?", "error_type": "", "error_name": "", "message": "",
                   "query_id": "", "queued_s": "", "elapsed_s": "", "client_s": ""})
    try:
        result = request(args.server + "/v1/statement", user, sql.encode(), "POST", session=args.session or None,
                         catalog=args.catalog, schema=args.schema, timeout=120)
        while True:
            record["query_id"] = result.get("id", record["query_id"])
            stats = result.get("stats", {})
            record["state"] = stats.get("state", record["state"])
            record["queued_s"] = round(stats.get("queuedTimeMillis", 0) / 1000, 3)
            record["elapsed_s"] = round(stats.get("elapsedTimeMillis", 0) / 1000, 3)
            if "error" in result:
                error = result["error"]
                record.update({"state": "FAILED", "error_type": error.get("errorType", ""),
                               "error_name": error.get("errorName", ""), "message": error.get("message", "")[:300]})
                break
            if "nextUri" not in result:
                break
            if time.monotonic() > deadline:
                record.update({"state": "ABANDONED", "message": f"still {record['state']} at the run's deadline"})
                break
            result = request(result["nextUri"], user, timeout=120)
    except (OSError, urllib.error.URLError, ValueError) as e:
        record.update({"state": "LOST", "message": f"the server stopped answering: {e}"[:300]})
    record["client_s"] = round(time.monotonic() - started, 3)


def main():
    args = parse_args()
    pid = trino_pid(args.var)
    if not alive(pid):
        raise SystemExit(f"load: Trino (pid {pid}) does not run")
    load_start = machine.load_average()
    sizes_at_start = log_sizes(args.var)
    storage_before = storage_state(args.var)
    sql = WORKLOADS[args.workload]
    monitor = Monitor(args, pid)
    monitor.start()
    started = time.monotonic()
    deadline = started + args.deadline
    records = [{} for _ in range(args.clients)]
    threads = [threading.Thread(target=follow, args=(args, f"user{i + 1:02d}", sql, records[i], deadline), daemon=True)
               for i in range(args.clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(1.0, deadline + 60 - time.monotonic()))
    wall = time.monotonic() - started
    monitor.stopped.set()
    monitor.join(30)
    oom = oom_in_logs(args.var, sizes_at_start)
    survived = alive(pid) and answers(args.server) and not oom
    storage_report, storage_exits = storage_lines(args.var, storage_before)

    for number, record in enumerate(records, 1):
        record["client"] = number
    write_csv(args.out + ".csv", records)
    by_state = {}
    for record in records:
        by_state[record.get("state", "?")] = by_state.get(record.get("state", "?"), 0) + 1
    failures = {}
    for record in records:
        if record.get("state") == "FAILED":
            key = f"{record['error_name']}: {record['message'][:160]}"
            failures[key] = failures.get(key, 0) + 1
    finished = [float(r["elapsed_s"]) for r in records if r.get("state") == "FINISHED" and r.get("elapsed_s") != ""]
    queued = [float(r["queued_s"]) for r in records if r.get("queued_s") not in ("", None)]

    lines = machine.header_lines("python3 benchmarks/load/run.py " + " ".join(sys.argv[1:]), load_start) + [
        f"# {time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())}",
        f"workload: {args.workload} on {args.catalog}.{args.schema}, {args.clients} clients at once, "
        f"session '{args.session or '(defaults)'}'",
        "Trino settings: " + "; ".join(trino_settings(args.var)),
        "",
        f"Trino server survived: {'yes' if survived else 'NO'}"
        + (f" (gone {monitor.died_at:.0f} s into the run)" if monitor.died_at is not None else ""),
        "OutOfMemoryError in Trino's logs: " + ("; ".join(oom) if oom else "none"),
        "queries: " + ", ".join(f"{state} {count}" for state, count in sorted(by_state.items())),
    ]
    for reason, count in sorted(failures.items(), key=lambda item: -item[1]):
        lines.append(f"  failed {count}x: {reason}")
    lines += storage_report + [
        f"wall time of the run: {wall:.1f} s",
        (f"finished queries' elapsed time: min {min(finished):.1f} s, max {max(finished):.1f} s" if finished else
         "finished queries' elapsed time: none finished"),
        (f"time queued: max {max(queued):.1f} s" if queued else "time queued: -"),
        f"peaks: used heap {monitor.peak_heap / 2**20:.0f} MiB, resident {monitor.peak_resident / 2**20:.0f} MiB, "
        f"memory pool reserved {monitor.peak_reserved / 2**20:.0f} MiB, running queries {monitor.peak_running}, "
        f"queued {monitor.peak_queued}, blocked {monitor.peak_blocked}",
        "",
        f"live objects at the heap's peak (class histogram at {monitor.histogram_heap / 2**20:.0f} MiB used):",
    ]
    lines += monitor.histogram or ["  (none taken)"]
    text = "\n".join(lines) + "\n"
    with open(args.out + ".txt", "w") as out:
        out.write(text)
    print(text, end="")
    sys.exit(0 if survived and storage_exits == 0 else 1)


if __name__ == "__main__":
    main()
