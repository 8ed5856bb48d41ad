#!/usr/bin/env python3
"""The 22 TPC-H queries on nsc.tpch in every pushdown mode, checked against Trino's own tpch catalog.

Correctness at scale is the point: each query's answer in each mode (session property
nsc.pushdown = none | raw | filter | auto) is compared with the answer of the same query on
Trino's tpch connector at the same scale (schema sf<scale>), which generates the data itself.
A difference is a failure: the script says which query and mode and exits 1 after the run.

Doubles are compared with a relative tolerance (sums over millions of rows added in another
order differ in their last digits); rows are compared as multisets, and where the query has an
ORDER BY also in order: rows whose sort keys tie may come in another order (Q11 has such ties),
which the summary says ("ties in another order") without counting it as a difference.

The reference answers are slow to compute (the tpch connector generates every row each time)
and never change, so they are kept in --reference (JSON) and reused by later runs.

Per query and mode it records the client's wall time of the first (cold) run and the median of
--repeat further runs (each round runs every mode once, in an order rotated from round to round and
query to query, so that no mode always pays for running first), Trino's physical input bytes, CPU and peak memory, and the split counts.

    ./nsc demo --scale 10
    python3 benchmarks/tpch-scale/run.py --scale 10 --repeat 1 --out benchmarks/tpch-scale/results/sf10

Writes <out>.csv (every run) and <out>.txt (the summary it prints). Standard library only.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import machine  # noqa: E402
from trino_client import data_size_bytes, duration_seconds, request, run_query, stages, write_csv  # noqa: E402

HOME = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUERY_DIR = os.path.join(HOME, "trino-nsc", "src", "test", "resources", "tpch")
MODES = ["auto", "none", "raw", "filter"]
RELATIVE_TOLERANCE = 1e-9
SPLIT_METRICS = ["row_groups_total", "row_groups_pruned_by_stats", "splits_raw", "splits_filter"]


def tpch_queries(scale):
    queries = []
    for number in range(1, 23):
        with open(os.path.join(QUERY_DIR, f"q{number:02d}.sql")) as file:
            text = "\n".join(line for line in file.read().splitlines() if not line.strip().startswith("--"))
        if number == 11:
            # TPC-H's FRACTION is 0.0001 / SF; the file holds scale 1's, which leaves Q11 empty at scale 10
            text = text.replace("* 0.0001", f"* {0.0001 / scale:.10f}")
        queries.append((f"q{number:02d}", text.strip().rstrip(";")))
    return queries


def tpch_schema(scale):
    # the tpch connector names scale 0.01 "tiny"; every other scale sf<scale>
    return "tiny" if scale == 0.01 else f"sf{scale:g}"


# modes beyond nsc.pushdown's own values: auto with the workers' measurements (nsc.adaptive-scan-modes)
# and without them, whatever the catalog's default
MODE_SESSIONS = {
    "auto-adaptive": "nsc.pushdown=auto,nsc.adaptive_scan_modes=true",
    "auto-estimated": "nsc.pushdown=auto,nsc.adaptive_scan_modes=false",
}


def width(mode):
    """A summary column's width: its heading, and at least 13."""
    return max(13, len(mode) + 7)


def mode_properties(mode):
    """A mode's session properties; 'MODE@name=value@...' adds nsc properties to MODE's, as in 'auto@dynamic_filtering_wait_timeout=10s'."""
    base, *extra = mode.split("@")
    properties = MODE_SESSIONS.get(base, f"nsc.pushdown={base}")
    for setting in extra:
        if "=" not in setting:
            raise SystemExit(f"mode {mode!r}: {setting!r} is not name=value")
        properties += f",nsc.{setting}"
    return properties


def session_of(catalog, schema, mode=None):
    properties = mode_properties(mode) if mode else None
    return {"catalog": catalog, "schema": schema, "properties": properties}


def execute(server, user, sql, session):
    return run_query(server, user, sql, session=session["properties"], catalog=session["catalog"], schema=session["schema"])


def values_equal(left, right):
    if isinstance(left, float) or isinstance(right, float):
        if left is None or right is None:
            return left is right
        return math.isclose(float(left), float(right), rel_tol=RELATIVE_TOLERANCE, abs_tol=1e-9)
    return left == right


def rows_equal(actual, expected, ordered):
    if len(actual) != len(expected):
        return False
    if not ordered:
        # doubles keep a few digits for the multiset order; the comparison itself is tolerant
        key = lambda row: json.dumps([float("%.6g" % v) if isinstance(v, float) else v for v in row])
        actual, expected = sorted(actual, key=key), sorted(expected, key=key)
    return all(len(a) == len(e) and all(values_equal(x, y) for x, y in zip(a, e)) for a, e in zip(actual, expected))


def is_ordered(sql):
    return "order by" in sql.lower()


def query_counters(server, user, query_id):
    info = request(f"{server}/v1/query/{query_id}", user)
    stats = info["queryStats"]
    counters = {"physical_input_bytes": data_size_bytes(stats["physicalInputDataSize"]),
                "trino_cpu_seconds": round(duration_seconds(stats["totalCpuTime"]), 3),
                "peak_user_memory_bytes": data_size_bytes(stats["peakUserMemoryReservation"])}
    counters.update({name: 0 for name in SPLIT_METRICS})
    for stage in stages(info.get("outputStage")):
        for node_metrics in stage["stageStats"].get("splitSourceMetrics", {}).values():
            for name, metric in node_metrics.items():
                if name in SPLIT_METRICS:
                    counters[name] += int(metric["total"])
    return counters


def reference_answers(args, queries):
    answers = {}
    if os.path.exists(args.reference):
        with open(args.reference) as file:
            stored = json.load(file)
        if stored.get("scale") == args.scale:
            # an answer is reused only for the very query text it answered
            answers = {name: rows for name, rows in stored["answers"].items() if stored.get("queries", {}).get(name) == dict(queries).get(name)}
    session = session_of("tpch", tpch_schema(args.scale))
    for name, sql in queries:
        if name in answers:
            continue
        started = time.monotonic()
        _, rows, _ = execute(args.server, args.user, sql, session)
        answers[name] = rows
        print(f"reference {name}: {len(rows)} rows from tpch.{tpch_schema(args.scale)} in {time.monotonic() - started:.1f} s", flush=True)
        os.makedirs(os.path.dirname(os.path.abspath(args.reference)), exist_ok=True)
        with open(args.reference, "w") as file:
            json.dump({"scale": args.scale, "queries": dict(queries), "answers": answers}, file)
    return answers


def rotated(modes, shift):
    shift %= len(modes)
    return modes[shift:] + modes[:shift]


def warm_median(records, name, mode):
    runs = [r["wall_seconds"] for r in records if r["query"] == name and r["mode"] == mode and r["run"] != "cold"]
    return statistics.median(runs) if runs else None


def auto_verdict(queries, records, modes):
    """auto against the better of raw and filter, per query and over all: the issue's test of an auto that never loses."""
    if "auto" not in modes or "raw" not in modes or "filter" not in modes:
        return []
    lines = ["auto against the better of raw and filter (warm medians):"]
    totals = {"auto": 0.0, "raw": 0.0, "filter": 0.0}
    worst = (0.0, None)
    for name, _ in queries:
        medians = {mode: warm_median(records, name, mode) for mode in totals}
        if any(median is None for median in medians.values()):
            continue
        for mode, median in medians.items():
            totals[mode] += median
        best_mode = "raw" if medians["raw"] <= medians["filter"] else "filter"
        ratio = medians["auto"] / medians[best_mode] if medians[best_mode] > 0 else float("nan")
        if ratio > worst[0]:
            worst = (ratio, name)
        lines.append(f"  {name}: auto {medians['auto']:.2f} s, best {medians[best_mode]:.2f} s ({best_mode}), auto / best {ratio:.2f}")
    best_mode = "raw" if totals["raw"] <= totals["filter"] else "filter"
    if totals[best_mode] > 0:
        total_ratio = totals["auto"] / totals[best_mode]
        lines.append(f"  total: auto {totals['auto']:.2f} s, raw {totals['raw']:.2f} s, filter {totals['filter']:.2f} s;"
                     f" auto / {best_mode} {total_ratio:.3f} ({'within' if total_ratio <= 1.05 else 'NOT within'} 5%)")
        lines.append(f"  slowest against its best mode: {worst[1]} {worst[0]:.2f} ({'within' if worst[0] <= 1.15 else 'NOT within'} 15%)")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default="http://127.0.0.1:8080")
    parser.add_argument("--user", default="benchmark")
    parser.add_argument("--scale", type=float, default=10.0, help="TPC-H scale nsc.tpch holds (./nsc demo --scale)")
    parser.add_argument("--repeat", type=int, default=1, help="warm runs after the cold one, per query and mode")
    parser.add_argument("--modes", default=",".join(MODES), help="pushdown modes to run, comma-separated (auto-adaptive, auto-estimated: auto with and without the workers' measurements; MODE@name=value adds the nsc session property name)")
    parser.add_argument("--queries", default="", help="query names to run (q01,q06,...); all 22 when empty")
    parser.add_argument("--reference", help="JSON file of the tpch catalog's answers (default: <out>-reference.json)")
    parser.add_argument("--out", required=True, help="prefix of the raw CSV and the summary")
    args = parser.parse_args()
    load_at_start = machine.load_average()
    args.reference = args.reference or args.out + "-reference.json"
    modes = [mode for mode in args.modes.split(",") if mode]
    queries = [(name, sql) for name, sql in tpch_queries(args.scale) if not args.queries or name in args.queries.split(",")]

    expected = reference_answers(args, queries)
    records = []
    failures = []
    for query_index, (name, sql) in enumerate(queries):
        failed = set()
        for run in range(0, args.repeat + 1):
            # every round runs each mode once, in an order rotated from round to round and query
            # to query: no mode always runs first (paying for the query's code generation and JIT)
            # or always right after another
            for mode in rotated(modes, query_index + run):
                if mode in failed:
                    continue
                session = session_of("nsc", "tpch", mode)
                try:
                    query_id, rows, wall = execute(args.server, args.user, sql, session)
                except RuntimeError as e:
                    failures.append(f"{name} in mode {mode} failed: {e}")
                    print(failures[-1], flush=True)
                    failed.add(mode)
                    continue
                # the same rows, whatever their order; and in the same order, where the query orders
                # them (rows whose ORDER BY keys tie may come in either order, so that is reported apart)
                equal = rows_equal(rows, expected[name], False)
                same_order = rows_equal(rows, expected[name], True) if is_ordered(sql) else equal
                if not equal:
                    failures.append(f"{name} in mode {mode}: {len(rows)} rows differ from tpch.{tpch_schema(args.scale)}'s {len(expected[name])}: first {rows[:2]} vs {expected[name][:2]}")
                    print(failures[-1], flush=True)
                records.append({"query": name, "mode": mode, "run": "cold" if run == 0 else run, "equal": equal, "same_order": same_order,
                                "wall_seconds": round(wall, 3), "rows": len(rows), **query_counters(args.server, args.user, query_id)})
                print(f"{name} {mode:6} run {run}: {wall:8.2f} s  {('equal' if same_order else 'equal, ties in another order') if equal else 'DIFFERENT'}", flush=True)

    if not records:
        print(f"reference answers in {args.reference}; no mode to run")
        return
    write_csv(args.out + ".csv", records)
    lines = machine.header_lines("python3 benchmarks/tpch-scale/run.py " + " ".join(sys.argv[1:]), load_at_start) + [
             f"TPC-H scale {args.scale:g}: each query in each mode compared with tpch.{tpch_schema(args.scale)}",
             f"{'query':6} " + " ".join(f"{mode + ' cold s':>{width(mode)}} {mode + ' warm s':>{width(mode)}}" for mode in modes) + "  equal"]
    totals = {mode: [0.0, 0.0] for mode in modes}
    for name, _ in queries:
        cells = []
        all_equal = True
        all_same_order = True
        for mode in modes:
            runs = [r for r in records if r["query"] == name and r["mode"] == mode]
            cold = next((r["wall_seconds"] for r in runs if r["run"] == "cold"), float("nan"))
            warm_runs = [r["wall_seconds"] for r in runs if r["run"] != "cold"]
            warm = statistics.median(warm_runs) if warm_runs else float("nan")
            all_equal &= bool(runs) and all(r["equal"] for r in runs)
            all_same_order &= all(r["same_order"] for r in runs)
            totals[mode][0] += cold
            totals[mode][1] += warm
            cells.append(f"{cold:{width(mode)}.2f} {warm:{width(mode)}.2f}")
        lines.append(f"{name:6} " + " ".join(cells) + f"  {('yes' if all_same_order else 'yes, ties in another order') if all_equal else 'NO'}")
    lines.append(f"{'total':6} " + " ".join(f"{cold:{width(mode)}.2f} {warm:{width(mode)}.2f}" for mode, (cold, warm) in totals.items()))
    lines.extend(auto_verdict(queries, records, modes))
    lines.append(f"failures: {len(failures)}")
    lines.extend(failures)
    lines.append(f"raw results: {args.out}.csv")
    summary = "\n".join(lines)
    print(summary)
    with open(args.out + ".txt", "w") as file:
        file.write(summary + "\n")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
