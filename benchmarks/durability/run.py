#!/usr/bin/env python3
"""What durability costs and how fast it repairs, at one scale, in one run.

1. Full-scan throughput with block-checksum verification on and off: two local clusters from
   ./nsc demo (same scale, same generated data, own state directories and ports), one with
   storage.verify-checksums=true (the default), one with NSC_VERIFY_CHECKSUMS=false. Both stay up
   and the runs alternate between them. The query reads lineitem columns from storage and leaves
   the arithmetic to Trino:

       SELECT count(*), sum(l_extendedprice * (1 - l_discount)), max(length(l_comment)) FROM nsc.tpch.lineitem

   in pushdown modes raw (byte ranges) and filter (storage nodes decode and send pages).
2. Scrub rate: once TPC-H is loaded, the verified cluster's storage nodes are restarted; each
   scrubs all its files at start-up with no rate limit (NSC_SCRUB_RATE=10GB), all three at once
   on the same disk. The rate is a node's bytes scrubbed over the time from its restart to
   scrub_last_pass_completed_millis (which includes the node's start-up: a lower bound).
3. Repair: on the verified cluster, SIGKILL one storage node and keep it down; the time until
   the metadata service reports no under-replicated file and no copy in flight, the bytes copied,
   and so the repair throughput. The loss timeout is --loss-timeout (it is part of the time).

    python3 benchmarks/durability/run.py --scale 1 --repeat 5 --out benchmarks/durability/results/sf1

Writes <out>-scan.csv and <out>-repair.csv and prints the summary. Standard library only.
"""
import argparse
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from nsc_metrics import service_metrics  # noqa: E402
from trino_client import data_size_bytes, normalized, request, run_query, write_csv  # noqa: E402

HOME = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUERY = "SELECT count(*), sum(l_extendedprice * (1 - l_discount)), max(length(l_comment)) FROM nsc.tpch.lineitem"
MODES = ["raw", "filter"]
# name -> (environment, port base, Trino port); ports apart from a developer's ./nsc demo
CLUSTERS = {
    "verified": ({"NSC_SCRUB_RATE": "10GB"}, 7470, 8480),
    "unverified": ({"NSC_VERIFY_CHECKSUMS": "false", "NSC_SCRUB_RATE": "0B"}, 7570, 8580),
}


def var_of(name):
    return os.path.join(HOME, "var", f"bench-durability-{name}")


def environment_of(name, loss_timeout):
    extra, port_base, _ = CLUSTERS[name]
    return {**extra, "NSC_VAR": var_of(name), "NSC_PORT_BASE": str(port_base),
            "NSC_REPLICA_LOSS_TIMEOUT": loss_timeout, "NSC_REPLICATION_CHECK_INTERVAL": "1s"}


def nsc(name, loss_timeout, *args):
    subprocess.run([os.path.join(HOME, "nsc"), *args], env={**os.environ, **environment_of(name, loss_timeout)}, check=True)


def metrics(name, component):
    """A service's /v1/metrics, read with the cluster's own client certificate."""
    _, port_base, _ = CLUSTERS[name]
    port = port_base + 1 if component == "metadata" else port_base + 10 * int(component.split("-")[1]) + 1
    return service_metrics(var_of(name), port)


def pid_of(name, component):
    with open(os.path.join(var_of(name), "cluster", "state", f"{component}.pid")) as file:
        return int(file.read().strip())


def scan_runs(args):
    records = []
    expected = None
    for mode in MODES:
        session = f"nsc.pushdown={mode}"
        for name, (_, _, trino_port) in CLUSTERS.items():
            run_query(f"http://127.0.0.1:{trino_port}", args.user, QUERY, session=session)  # warm-up
        for attempt in range(1, args.repeat + 1):
            for name, (_, _, trino_port) in CLUSTERS.items():
                server = f"http://127.0.0.1:{trino_port}"
                query_id, rows, wall = run_query(server, args.user, QUERY, session=session)
                if expected is None:
                    expected = normalized(rows)
                elif normalized(rows) != expected:
                    raise RuntimeError(f"{name}/{mode} returned {rows}, expected {expected}")
                received = data_size_bytes(request(f"{server}/v1/query/{query_id}", args.user)["queryStats"]["physicalInputDataSize"])
                records.append({"checksums": name, "mode": mode, "run": attempt, "wall_seconds": round(wall, 3),
                                "bytes_from_storage": received, "mb_per_second": round(received / wall / 1e6, 1),
                                "load_average": os.getloadavg()[0]})
    return records


def scrub_rates(args):
    nodes = ("storage-1", "storage-2", "storage-3")
    for node in nodes:
        os.kill(pid_of("verified", node), signal.SIGTERM)
    for node in nodes:
        while os.path.exists(f"/proc/{pid_of('verified', node)}"):
            time.sleep(0.2)
    started_millis = int(time.time() * 1000)
    nsc("verified", args.loss_timeout, "demo", "--scale", args.scale, "--trino-port", str(CLUSTERS["verified"][2]))
    rates = []
    for node in nodes:
        deadline = time.time() + 3600
        while (node_metrics := metrics("verified", node))["scrub_passes_completed"] == 0:
            if time.time() > deadline:
                raise RuntimeError(f"{node} did not complete a scrubbing pass within an hour")
            time.sleep(0.5)
        seconds = (node_metrics["scrub_last_pass_completed_millis"] - started_millis) / 1000
        rates.append({"node": node, "bytes_scrubbed": node_metrics["scrub_bytes_scrubbed"], "files": node_metrics["scrub_files_scrubbed"],
                      "damaged": node_metrics["scrub_damaged_found"], "seconds_since_restart": round(seconds, 1),
                      "mb_per_second_lower_bound": round(node_metrics["scrub_bytes_scrubbed"] / seconds / 1e6, 1)})
    return rates


def repair_run(args):
    before = metrics("verified", "metadata")
    victim = "storage-3"
    os.kill(pid_of("verified", victim), signal.SIGKILL)
    killed = time.time()
    while True:
        time.sleep(0.5)
        now = metrics("verified", "metadata")
        copies = now["copies_completed"] - before["copies_completed"]
        if copies > 0 and now["under_replicated_files"] == 0 and now["copies_in_flight"] == 0:
            break
        if time.time() - killed > 3600:
            raise RuntimeError(f"not repaired within an hour: {now}")
    seconds = time.time() - killed
    copied = now["bytes_copied"] - before["bytes_copied"]
    return {"victim": victim, "loss_timeout": args.loss_timeout, "seconds_to_full_replication": round(seconds, 1),
            "copies": copies, "bytes_copied": copied,
            "repair_mb_per_second_after_timeout": round(copied / max(seconds - duration_seconds(args.loss_timeout), 0.001) / 1e6, 1)}


def duration_seconds(text):
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    for unit in ("ms", "s", "m", "h"):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * units[unit]
    raise ValueError(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", default="1")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--loss-timeout", default="10s")
    parser.add_argument("--user", default="benchmark")
    parser.add_argument("--out", required=True, help="prefix of the CSV files for the raw results")
    args = parser.parse_args()

    try:
        for name, (_, _, trino_port) in CLUSTERS.items():
            nsc(name, args.loss_timeout, "demo", "--scale", args.scale, "--trino-port", str(trino_port))
        scrubs = scrub_rates(args)
        scans = scan_runs(args)
        repair = repair_run(args)
    finally:
        for name in CLUSTERS:
            nsc(name, args.loss_timeout, "stop")

    write_csv(f"{args.out}-scan.csv", scans)
    write_csv(f"{args.out}-scrub.csv", scrubs)
    write_csv(f"{args.out}-repair.csv", [repair])
    print(f"machine: {platform.node()} {platform.machine()} ({os.cpu_count()} cpus), python {platform.python_version()}; "
          f"1-minute load average during the scans: {min(r['load_average'] for r in scans):.2f} to {max(r['load_average'] for r in scans):.2f}")
    print(f"query: {QUERY} (TPC-H scale {args.scale}), median of {args.repeat} runs, clusters alternating")
    print(f"{'checksums':10} {'mode':7} {'median s':>9} {'bytes from storage':>19} {'MB/s':>7}")
    for name in CLUSTERS:
        for mode in MODES:
            runs = [r for r in scans if r["checksums"] == name and r["mode"] == mode]
            wall = statistics.median(r["wall_seconds"] for r in runs)
            received = statistics.median(r["bytes_from_storage"] for r in runs)
            print(f"{name:10} {mode:7} {wall:9.3f} {int(received):19,d} {received / wall / 1e6:7.1f}")
    for scrub in scrubs:
        print(f"scrub {scrub['node']}: {scrub['files']} files, {scrub['bytes_scrubbed']:,d} bytes, {scrub['damaged']} damaged, "
              f"{scrub['seconds_since_restart']} s after the restart: at least {scrub['mb_per_second_lower_bound']} MB/s (unthrottled, three nodes at once)")
    print("repair: " + json.dumps(repair))
    print(f"raw results: {args.out}-scan.csv, {args.out}-scrub.csv, {args.out}-repair.csv")


if __name__ == "__main__":
    main()
