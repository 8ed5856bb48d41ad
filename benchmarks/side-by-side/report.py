#!/usr/bin/env python3
"""The side-by-side benchmark's report, from its raw results alone:

    python3 benchmarks/side-by-side/report.py RESULTS_DIR

reads runs.csv, concurrency.csv, link.csv and environment.json (and notes.txt, a closing note
written by whoever ran it, when present) and writes summary.csv (one row per rate, query and
path), summary.txt (what the run printed) and report.html (one self-contained page: tables and
inline SVG plots). A query whose answers differ between paths, or that failed, is listed as a
failure and given no figure.

Standard library only.
"""
import csv
import html
import json
import math
import os
import statistics
import sys

import svg

PATH_ORDER = ["nsc", "hive", "iceberg"]
BASELINES = ["hive", "iceberg"]
TARGET_RATE = "1gbit"
# a 1-minute load average at the start above this per CPU: something else was running, and the
# run's figures are labelled as taken on a loaded machine (docs/architecture/decisions.md, Measuring)
LOADED_PER_CPU = 0.25
SUMMED = ["link_rx_bytes", "link_tx_bytes", "physical_input_bytes", "storage_cpu_s", "trino_process_cpu_s", "trino_cpu_s",
          "storage_rows_scanned", "storage_scan_cpu_s", "storage_bytes_read_from_disk", "peak_memory_bytes"]


# --- CSV ----------------------------------------------------------------------------------------

def write_csv(path, records):
    """Every key of every record is a column (in order of first appearance); an empty list writes
    an empty file."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fields = []
    for record in records:
        for key in record:
            if key not in fields:
                fields.append(key)
    with open(path, "w", newline="") as out:
        if not fields:
            return
        writer = csv.DictWriter(out, fieldnames=fields, restval="")
        writer.writeheader()
        writer.writerows(records)


def _value(text):
    if text is None or text == "":
        return None
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def read_csv(path):
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return []
    with open(path, newline="") as file:
        return [{key: _value(value) for key, value in row.items()} for row in csv.DictReader(file)]


# --- figures ------------------------------------------------------------------------------------

def geometric_mean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def _is_warm(record):
    return isinstance(record["run"], int)


def summarize(runs):
    """One row per (rate, query, path): the cold run, the median of the warm runs and the median
    of each counter over them; speedups of nsc against each baseline on the nsc rows. A query
    with a failed or differing run on a path has status mismatch or error and no figures there."""
    groups = {}
    for record in runs:
        if str(record["run"]).startswith("profile"):
            continue
        key = (record["rate"], record["query"], record["path"])
        groups.setdefault(key, []).append(record)
    rows = []
    for (rate, query, path), records in groups.items():
        first = records[0]
        failures = [r for r in records if r["status"] != "ok"]
        row = {"rate": rate, "rate_bits": first["rate_bits"], "workload": first["workload"], "query": query,
               "column": first.get("column") or "", "selectivity": first.get("selectivity"), "path": path}
        warm = [r for r in records if _is_warm(r) and r["status"] == "ok"]
        cold = [r for r in records if r["run"] == "cold" and r["status"] == "ok"]
        if failures:
            row["status"] = failures[0]["status"]
            row["detail"] = f"{failures[0]['detail']} (run {failures[0]['run']}; {len(failures)} of {len(records)} runs)"
        elif not warm:
            row["status"], row["detail"] = "missing", "no warm run"
        else:
            row["status"], row["detail"] = "ok", ""
        row["warm_runs"] = len(warm)
        if row["status"] == "ok":
            walls = [r["wall_s"] for r in warm]
            row["cold_s"] = cold[0]["wall_s"] if cold else None
            row["warm_median_s"] = round(statistics.median(walls), 3)
            row["warm_min_s"] = min(walls)
            row["warm_max_s"] = max(walls)
            for name in SUMMED:
                present = [r[name] for r in warm if r.get(name) is not None]
                row[name] = statistics.median(present) if present else None
            row["cold_link_rx_bytes"] = cold[0]["link_rx_bytes"] if cold else None
            row["matched_rows"] = warm[0].get("matched_rows")
            if row["rate_bits"] and row["warm_median_s"]:
                row["link_utilisation"] = round(row["link_rx_bytes"] * 8 / row["warm_median_s"] / row["rate_bits"], 3)
        rows.append(row)
    by_key = {(r["rate"], r["query"], r["path"]): r for r in rows}
    for row in rows:
        if row["path"] != "nsc":
            continue
        for baseline in BASELINES:
            other = by_key.get((row["rate"], row["query"], baseline))
            if row["status"] == "ok" and other and other["status"] == "ok":
                row[f"speedup_vs_{baseline}"] = round(other["warm_median_s"] / row["warm_median_s"], 3)
                if row.get("cold_s") and other.get("cold_s"):
                    row[f"cold_speedup_vs_{baseline}"] = round(other["cold_s"] / row["cold_s"], 3)
    rows.sort(key=lambda r: (r["rate_bits"], _query_order(r), PATH_ORDER.index(r["path"]) if r["path"] in PATH_ORDER else 9))
    return rows


_WORKLOAD_ORDER = ["tpch", "selectivity", "point", "shapes", "topn", "join", "full"]


def _query_order(row):
    workload = _WORKLOAD_ORDER.index(row["workload"]) if row["workload"] in _WORKLOAD_ORDER else 9
    selectivity = row["selectivity"] if isinstance(row.get("selectivity"), (int, float)) else 0
    return (workload, row.get("column") or "", selectivity, row["query"])


def rates_of(rows):
    seen = {}
    for row in rows:
        seen.setdefault(row["rate"], row["rate_bits"])
    return [rate for rate, _ in sorted(seen.items(), key=lambda item: item[1])]


def headline(rows, concurrency, rate):
    """The figures the issue's targets are about, at one rate."""
    at = {(r["query"], r["path"]): r for r in rows if r["rate"] == rate}
    paths = sorted({r["path"] for r in rows if r["rate"] == rate}, key=lambda p: PATH_ORDER.index(p))
    result = {"rate": rate, "paths": paths}

    def figure(query, path, key="warm_median_s"):
        row = at.get((query, path))
        return row.get(key) if row and row["status"] == "ok" else None

    result["unsorted_1pct"] = {path: figure("unsorted 1%", path) for path in paths}
    result["unsorted_1pct_bytes"] = {path: figure("unsorted 1%", path, "link_rx_bytes") for path in paths}
    tpch = sorted({q for q, p in at if at[(q, p)]["workload"] == "tpch"})
    result["tpch_queries"] = len(tpch)
    result["tpch_failed"] = sorted({q for q in tpch for p in paths if at.get((q, p)) and at[(q, p)]["status"] != "ok"})
    result["tpch_geomean_s"] = {}
    result["tpch_geomean_speedup"] = {}
    for path in paths:
        times = [figure(q, path) for q in tpch]
        result["tpch_geomean_s"][path] = geometric_mean(times) if tpch and None not in times else None
    for baseline in BASELINES:
        speedups = [at[(q, "nsc")].get(f"speedup_vs_{baseline}") for q in tpch if (q, "nsc") in at]
        ok = [s for s in speedups if s]
        result["tpch_geomean_speedup"][baseline] = (geometric_mean(ok), len(ok))
    result["full_scan"] = {path: figure("full scan", path) for path in paths}
    result["full_scan_utilisation"] = {path: figure("full scan", path, "link_utilisation") for path in paths}
    result["full_scan_bytes"] = {path: figure("full scan", path, "link_rx_bytes") for path in paths}
    for name in ("link_rx_bytes", "storage_cpu_s", "trino_process_cpu_s"):
        result[f"tpch_{name}"] = {path: (sum(figure(q, path, name) or 0 for q in tpch) if tpch else None) for path in paths}
    result["streams"] = {c["path"]: c for c in concurrency if c["rate"] == rate}
    nsc_rows = [r for r in rows if r["rate"] == rate and r["path"] == "nsc" and r["status"] == "ok"]
    rows_scanned = sum(r.get("storage_rows_scanned") or 0 for r in nsc_rows)
    scan_cpu = sum(r.get("storage_scan_cpu_s") or 0 for r in nsc_rows)
    process_cpu = sum(r.get("storage_cpu_s") or 0 for r in nsc_rows)
    result["scan_rate"] = (rows_scanned / scan_cpu if scan_cpu else None, rows_scanned / process_cpu if process_cpu else None, rows_scanned)
    return result


def speedup(baseline_time, nsc_time):
    return baseline_time / nsc_time if baseline_time and nsc_time else None


def targets(rows, concurrency):
    """The issue's targets at 1 Gbit/s, each met, missed or not measured."""
    if TARGET_RATE not in rates_of(rows):
        return [("all targets", "not measured", f"no run at {TARGET_RATE}")]
    h = headline(rows, concurrency, TARGET_RATE)
    result = []
    value = speedup(h["unsorted_1pct"].get("hive"), h["unsorted_1pct"].get("nsc"))
    result.append(("at least 10x faster than Hive at 1% selectivity on an unsorted column",
                   "not measured" if value is None else ("met" if value >= 10 else "missed"),
                   "" if value is None else f"{value:.2f}x"))
    value, count = h["tpch_geomean_speedup"]["hive"]
    complete = count == h["tpch_queries"] and h["tpch_queries"] == 22
    result.append(("at least 2x on the TPC-H geometric mean (against Hive)",
                   "not measured" if value is None else ("met" if value >= 2 and complete else "missed"),
                   "" if value is None else f"{value:.2f}x over {count} of 22 queries"))
    value = speedup(h["full_scan"].get("hive"), h["full_scan"].get("nsc"))
    result.append(("at least 0.95x on full scans (against Hive)",
                   "not measured" if value is None else ("met" if value >= 0.95 else "missed"), "" if value is None else f"{value:.2f}x"))
    utilisation = h["full_scan_utilisation"]
    ok = [path for path in ("nsc", "hive") if utilisation.get(path) is not None]
    detail = ", ".join(f"{path} {utilisation[path]:.0%}" for path in ok)
    result.append(("full scans use at least 90% of the link",
                   "not measured" if not ok else ("met" if all(utilisation[p] >= 0.9 for p in ok) else "missed"), detail))
    return result


# --- text ---------------------------------------------------------------------------------------

def _seconds(value):
    return "-" if value is None else f"{value:.3f}"


def _ratio(value):
    return "-" if value is None else f"{value:.2f}x"


def _bytes(value):
    return "-" if value is None else f"{value / 1e6:,.1f} MB"


def testbed_mode(environment):
    """shared or split; results from before the split testbed recorded none and were shared."""
    return environment.get("testbed", "shared")


def _load(values):
    return " ".join(f"{value:.2f}" for value in values) if values else "?"


def loaded_at_start(environment):
    load = environment.get("load_average_at_start")
    cpus = environment.get("cpus") or 1
    return bool(load) and load[0] >= LOADED_PER_CPU * cpus


def testbed_lines(environment):
    """The testbed: its mode, each side's CPUs as requested and as the kernel had them
    (Cpus_allowed_list of each service), how they were placed, and the load average around the run."""
    mode = testbed_mode(environment)
    if "testbed" not in environment:
        lines = ["testbed: shared (not recorded: results from before the split testbed, when every process shared every CPU)"]
    elif mode == "split":
        requested = environment.get("cpu_sets_requested") or {}
        lines = [f"testbed: split: storage side on CPUs {requested.get('storage', '?')}, Trino on CPUs {requested.get('trino', '?')}; "
                 f"placed by {environment.get('cpu_placement') or '?'}"]
    else:
        lines = ["testbed: shared: every process on every CPU"]
    applied = environment.get("cpu_sets_applied")
    if applied:
        lines.append("CPUs as applied (Cpus_allowed_list): " + ", ".join(f"{name} {value}" for name, value in applied.items()))
    # read again before the stop: a thread started later on another set would show here
    at_end = environment.get("cpu_sets_at_end") or {}
    moved = {name: value for name, value in at_end.items() if value and applied and value != applied.get(name)}
    if moved:
        lines.append("CPUs CHANGED by the end of the run: " + ", ".join(f"{name} {value}" for name, value in moved.items()))
    if "load_average_at_start" in environment:
        lines.append(f"load average (1, 5, 15 min) at start {_load(environment.get('load_average_at_start'))}, "
                     f"at end {_load(environment.get('load_average_at_end'))}"
                     + (f" (after waiting {environment['waited_for_quiet_s']:g} s for it to settle)" if environment.get("waited_for_quiet_s") else "")
                     + ("; LOADED MACHINE at start: rerun quiet before quoting these figures" if loaded_at_start(environment) else ""))
    return lines


def summary_text(rows, concurrency, calibration, environment):
    lines = [f"nsc side by side: TPC-H scale {environment.get('scale', '?')}, {environment.get('cpus', '?')} CPUs "
             f"({environment.get('cpu_model', '?')}), {environment.get('memory_gib', '?')} GiB; "
             + ("TLS on both paths" if environment.get("tls", True) else "no TLS on either path")]
    lines.append(f"command: {environment.get('command', '?')}")
    lines.append(f"nsc {environment.get('nsc_commit', '?')[:12]}{' (uncommitted changes)' if environment.get('nsc_tree_dirty') else ''}, "
                 f"Trino 476, {environment.get('s3proxy', 's3proxy')}, {environment.get('java_runtime', '')}")
    lines += testbed_lines(environment)
    if environment.get("duration_s") is not None:
        lines.append(f"started {environment.get('started')}, took {environment['duration_s'] / 60:.1f} min"
                     + ("" if environment.get("finished", True) else " (INTERRUPTED: partial results)"))
    for link in calibration:
        lines.append(f"link {link['rate']}: one TCP stream {link['tcp_bits_per_s'] / 1e9:.3f} Gbit/s ({link['fraction_of_rate']:.0%} of the rate)")
    for rate in rates_of(rows):
        h = headline(rows, concurrency, rate)
        lines.append("")
        lines.append(f"== {rate} ==")
        lines.append(f"{'':34} " + " ".join(f"{p:>12}" for p in h["paths"]) + "   nsc vs hive   nsc vs iceberg")

        def line(label, values, fmt, ratio=True):
            text = f"{label:34} " + " ".join(f"{fmt(values.get(p)):>12}" for p in h["paths"])
            if ratio:
                text += f"   {_ratio(speedup(values.get('hive'), values.get('nsc'))):>11}   {_ratio(speedup(values.get('iceberg'), values.get('nsc'))):>14}"
            return text

        lines.append(line("unsorted 1%: warm median s", h["unsorted_1pct"], _seconds))
        lines.append(line("unsorted 1%: bytes over the link", h["unsorted_1pct_bytes"], _bytes, ratio=False))
        lines.append(line(f"TPC-H geomean s ({h['tpch_queries']} queries)", h["tpch_geomean_s"], _seconds))
        lines.append(line("full scan: warm median s", h["full_scan"], _seconds))
        lines.append(line("full scan: link utilisation", h["full_scan_utilisation"], lambda v: "-" if v is None else f"{v:.0%}", ratio=False))
        lines.append(line("TPC-H: bytes over the link", h["tpch_link_rx_bytes"], _bytes, ratio=False))
        lines.append(line("TPC-H: storage-side CPU s", h["tpch_storage_cpu_s"], lambda v: "-" if v is None else f"{v:.1f}", ratio=False))
        lines.append(line("TPC-H: Trino CPU s", h["tpch_trino_process_cpu_s"], lambda v: "-" if v is None else f"{v:.1f}", ratio=False))
        streams = h["streams"]
        if streams:
            lines.append(line(f"{next(iter(streams.values()))['streams']} streams: queries/hour",
                              {p: (c["queries_per_hour"] or None) for p, c in streams.items()}, lambda v: "-" if v is None else f"{v:,.0f}", ratio=False))
        for baseline in BASELINES:
            value, count = h["tpch_geomean_speedup"][baseline]
            if value:
                lines.append(f"TPC-H geometric mean of per-query speedups, nsc vs {baseline}: {value:.2f}x over {count} queries")
        if h["tpch_failed"]:
            lines.append(f"TPC-H queries with a failed or differing path (no figure): {', '.join(h['tpch_failed'])}")
        by_scan, by_process, scanned = h["scan_rate"]
        if scanned:
            lines.append(f"nsc storage scan rate: {int(scanned):,} rows scanned (warm medians summed); {by_scan / 1e6:,.1f} M rows per scan CPU second"
                         f" (connector's storage_cpu_nanos), {by_process / 1e6:,.1f} M rows per CPU second of the storage-side processes")
    lines.append("")
    lines.append("targets at 1gbit:")
    for name, verdict, detail in targets(rows, concurrency):
        lines.append(f"  {verdict.upper():13} {name}{': ' + detail if detail else ''}")
    failures = [r for r in rows if r["status"] != "ok"]
    lines.append("")
    lines.append(f"failures (answers that differ, errors): {len(failures) or 'none'}")
    for r in failures:
        lines.append(f"  {r['rate']} {r['query']} on {r['path']}: {r['status']}: {r['detail']}")
    for c in concurrency:
        if c["failed"]:
            lines.append(f"  {c['rate']} concurrent streams on {c['path']}: {c['failed']} of {c['queries']} queries failed or differed")
    return "\n".join(lines)


# --- HTML ---------------------------------------------------------------------------------------

def _h(text):
    return html.escape(str(text))


def _table(header, body, classes=None):
    out = ["<table><thead><tr>" + "".join(f"<th>{_h(h)}</th>" for h in header) + "</tr></thead><tbody>"]
    for index, row in enumerate(body):
        cls = f' class="{classes[index]}"' if classes and classes[index] else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{_h(cell)}</td>" for cell in row) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _selectivity_label(value):
    return f"{value * 100:g}%"


def charts(rows, concurrency):
    parts = []
    rates = rates_of(rows)
    chart_rate = TARGET_RATE if TARGET_RATE in rates else (rates[0] if rates else None)
    by_key = {(r["rate"], r["query"], r["path"]): r for r in rows}
    # speedup against selectivity, per column, a line per rate and baseline
    for column, label in (("unsorted", "l_partkey (unsorted)"), ("sorted", "l_shipdate (sorted)")):
        sweep = sorted({(r["selectivity"], r["query"]) for r in rows if r["workload"] == "selectivity" and r["column"] == column})
        if not sweep:
            continue
        series = []
        for index, rate in enumerate(rates):
            for baseline, dash in (("hive", None), ("iceberg", "5 3")):
                values = [by_key.get((rate, query, "nsc"), {}).get(f"speedup_vs_{baseline}") for _, query in sweep]
                if any(v is not None for v in values):
                    series.append({"name": f"{rate} vs {baseline}", "color": svg.RATE_COLORS[index % len(svg.RATE_COLORS)], "dash": dash, "values": values})
        parts.append((svg.line_chart(f"Speedup of nsc against selectivity: {label}", [_selectivity_label(s) for s, _ in sweep], series,
                                     "speedup (x, log scale)", reference=1),
                      f"{label}: the warm median of Hive (solid) or Iceberg (dashed) over nsc's, one colour per link rate; "
                      "above the dashed line at 1 nsc is faster. Query: count(*) and a sum over lineitem where the column passes the "
                      "selectivity."))
    # TPC-H per query, per rate
    for rate in rates:
        tpch = sorted({r["query"] for r in rows if r["rate"] == rate and r["workload"] == "tpch"})
        if not tpch:
            continue
        series = [{"name": f"nsc vs {baseline}", "color": svg.COLORS[baseline], "missing": "failed",
                   "values": [by_key.get((rate, q, "nsc"), {}).get(f"speedup_vs_{baseline}") for q in tpch]} for baseline in BASELINES]
        series = [s for s in series if any(v is not None for v in s["values"])]
        if series:
            means = ", ".join(f"{s['name']} {geometric_mean(s['values']):.2f}x" for s in series if geometric_mean(s["values"]))
            parts.append((svg.bar_chart(f"TPC-H at {rate}: speedup of nsc per query", tpch, series,
                                        "speedup (x, log scale); the dashed line is 1", reference=1),
                          f"Warm median of the baseline over nsc's, per query; geometric mean: {means}. A missing bar: the query "
                          "failed or its answers differed on one of the two paths."))
    if chart_rate:
        queries = sorted({(_query_order(r), r["query"]) for r in rows if r["rate"] == chart_rate})
        names = [q for _, q in queries]
        paths = [p for p in PATH_ORDER if any(r["path"] == p for r in rows)]
        series = [{"name": path, "color": svg.COLORS[path],
                   "values": [(lambda r: r.get("link_rx_bytes") if r and r["status"] == "ok" else None)(by_key.get((chart_rate, q, path)))
                              for q in names]} for path in paths]
        parts.append((svg.bar_chart(f"Bytes over the link per query ({chart_rate})", names, series, "bytes (log scale)", bar=5),
                      "Bytes the host end of the link received from the storage side (veth counters: TCP/IP and TLS included), "
                      "warm median per query and path."))
        # CPU split by side, per workload
        workloads = [w for w in _WORKLOAD_ORDER if any(r["workload"] == w and r["rate"] == chart_rate for r in rows)]
        categories, storage, trino = [], [], []
        for workload in workloads:
            for path in paths:
                selected = [r for r in rows if r["rate"] == chart_rate and r["workload"] == workload and r["path"] == path and r["status"] == "ok"]
                categories.append(f"{workload}: {path}")
                storage.append(sum(r.get("storage_cpu_s") or 0 for r in selected))
                trino.append(sum(r.get("trino_process_cpu_s") or 0 for r in selected))
        parts.append((svg.stacked_bar_chart(f"CPU seconds by side per workload ({chart_rate})",
                                            categories, [{"name": "storage side", "color": "#64748b", "values": storage},
                                                         {"name": "Trino", "color": "#f59e0b", "values": trino}], "CPU seconds"),
                      "User and system CPU seconds from /proc, summed over each workload's queries (warm medians): the storage side "
                      "is nsc's metadata service and three storage nodes for nsc, s3proxy for Hive and Iceberg; Trino is the Trino "
                      "server process."))
    if concurrency:
        categories = [f"{c['rate']}: {c['path']}" for c in concurrency]
        parts.append((svg.bar_chart("Concurrent streams: queries per hour", categories,
                                    [{"name": "queries/hour", "color": "#0f766e", "missing": "failed",
                                      "values": [c["queries_per_hour"] or None for c in concurrency]}], "queries per hour", log=False, bar=12),
                      "Each stream runs the same mix of queries in its own shuffled order; throughput is the queries over the time "
                      "until the last stream ended. No bar: a query failed or its answer differed."))
    return parts


def _cpu_item(environment):
    """The testbed's CPUs, as a sentence of the Testbed list."""
    if testbed_mode(environment) == "split":
        requested = environment.get("cpu_sets_requested") or {}
        return (f"Split testbed: the storage side runs on CPUs {_h(requested.get('storage', '?'))} and Trino on CPUs "
                f"{_h(requested.get('trino', '?'))} of the machine's {_h(environment.get('cpus', '?'))} "
                f"({_h(environment.get('cpu_placement') or '?')}), as storage nodes with CPUs of their own would; "
                "the sets as applied, read back from each process, are in the summary. CPU is reported per side.")
    return (f"Shared testbed: all processes share the machine's {_h(environment.get('cpus', '?'))} CPUs: storage-side work competes "
            "with Trino's, which penalises the path that does more work next to the data (nsc's scans) in wall time; CPU is reported per side.")


def render_html(directory, rows, runs, concurrency, calibration, environment, notes, summary):
    out = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>nsc side by side</title><style>",
           "body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#111;line-height:1.4}",
           "table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:12px}td,th{border:1px solid #d1d5db;padding:2px 6px;text-align:right}",
           "th{background:#f3f4f6}td:first-child,th:first-child{text-align:left}tr.fail td{background:#fee2e2}",
           "pre{background:#f8fafc;padding:0.8em;overflow-x:auto;font-size:12px}svg{display:block;margin:1em 0 0.3em}figure{margin:1em 0 2em}figcaption{font-size:12px;color:#374151;max-width:760px}",
           ".met{color:#15803d;font-weight:bold}.missed{color:#b91c1c;font-weight:bold}</style></head><body>",
           f"<h1>nsc side by side with Trino on S3: {_h(testbed_mode(environment))} testbed</h1>"]
    out.append(f"<p>TPC-H scale {_h(environment.get('scale', '?'))}; link rates {_h(', '.join(environment.get('rates', [])))}; "
               f"{_h(environment.get('repeat', '?'))} warm runs per query and path (median reported) after one cold run. "
               f"Command: <code>{_h(environment.get('command', '?'))}</code></p>")
    out.append("<h2>Testbed</h2><ul>")
    for item in [
        "One machine. The storage side runs in a network namespace behind a veth pair; tbf shapes both directions "
        "to the rate (no added latency: netem is not in this kernel). Bytes over the link are the host end's counters.",
        "Storage side: nsc's metadata service and three storage nodes (two replicas per file), and s3proxy "
        f"({_h(environment.get('s3proxy', ''))}, file-system backend). Compute side: one Trino 476 (coordinator and worker) "
        "with the catalogs nsc, hive (native S3 file system) and iceberg (file metastore, native S3).",
        "The same Parquet files everywhere: nsc's TPC-H generator (lineitem sorted by l_shipdate, orders by o_orderdate, "
        "ZSTD, row groups of 100,000 rows), loaded into nsc, put into S3 byte for byte, registered as Hive external tables and "
        "as Iceberg tables over the same objects (add_files_from_table)"
        + (", Hive and Iceberg tables analyzed" if environment.get("analyze", True) else "") + ".",
        ("TLS on both: nsc's mutual TLS, S3 over HTTPS." if environment.get("tls", True) else "No TLS on either side."),
        _cpu_item(environment),
        "Cold: the path's data files evicted from the page cache (posix_fadvise) just before its run; the JVMs stay up and warm "
        "(a warm-up pass ran every query once on every path first).",
    ]:
        out.append(f"<li>{item}</li>")
    out.append("</ul>")
    out.append("<h2>Summary</h2><pre>" + _h(summary) + "</pre>")
    out.append("<h2>Targets (at 1 Gbit/s)</h2>")
    out.append(_table(["target", "verdict", "measured"], targets(rows, concurrency)))
    if notes:
        out.append("<h2>Notes</h2>" + "".join(f"<p>{_h(paragraph)}</p>" for paragraph in notes.split("\n\n") if paragraph.strip()))
    out.append("<h2>Plots</h2>")
    for chart, caption in charts(rows, concurrency):
        out.append(f"<figure>{chart}<figcaption>{_h(caption)}</figcaption></figure>")
    out.append("<h2>Every query</h2><p>Warm median seconds per path (cold run in brackets), nsc's speedups, and per path the "
               "bytes over the link, storage-side and Trino CPU seconds (warm medians). Rows in red failed or differed.</p>")
    paths = [p for p in PATH_ORDER if any(r["path"] == p for r in rows)]
    by_key = {(r["rate"], r["query"], r["path"]): r for r in rows}
    for rate in rates_of(rows):
        names = sorted({(_query_order(r), r["query"]) for r in rows if r["rate"] == rate})
        body, classes = [], []
        for _, query in names:
            cells, failed = [query], False
            for path in paths:
                r = by_key.get((rate, query, path))
                if r is None:
                    cells.append("")
                elif r["status"] != "ok":
                    cells.append(r["status"])
                    failed = True
                else:
                    cells.append(f"{r['warm_median_s']:.3f} ({_seconds(r.get('cold_s'))})")
            nsc = by_key.get((rate, query, "nsc"), {})
            for baseline in BASELINES:
                if baseline in paths:
                    cells.append(_ratio(nsc.get(f"speedup_vs_{baseline}")))
            for path in paths:
                r = by_key.get((rate, query, path))
                ok = r and r["status"] == "ok"
                cells.append(_bytes(r.get("link_rx_bytes")) if ok else "")
                cells.append(f"{r.get('storage_cpu_s') or 0:.2f} / {r.get('trino_process_cpu_s') or 0:.2f}" if ok else "")
            body.append(cells)
            classes.append("fail" if failed else "")
        header = ["query"] + [f"{p} s" for p in paths] + [f"vs {b}" for b in BASELINES if b in paths]
        for path in paths:
            header += [f"{path} link", f"{path} CPU storage/Trino"]
        out.append(f"<h3>{_h(rate)}</h3>" + _table(header, body, classes))
    failures = [r for r in rows if r["status"] != "ok"]
    out.append("<h2>Failures</h2>")
    if failures:
        out.append(_table(["rate", "query", "path", "status", "detail"], [[r["rate"], r["query"], r["path"], r["status"], r["detail"]] for r in failures],
                          ["fail"] * len(failures)))
    else:
        out.append("<p>None: every path returned the same answer to every query, in every run.</p>")
    if concurrency:
        out.append("<h2>Concurrent streams</h2>")
        out.append(_table(["rate", "path", "streams", "queries", "failed", "makespan s", "queries/hour", "link MB", "storage CPU s", "Trino CPU s"],
                          [[c["rate"], c["path"], c["streams"], c["queries"], c["failed"], c["makespan_s"], c["queries_per_hour"] or "-",
                            f"{c['link_rx_bytes'] / 1e6:,.1f}", c["storage_cpu_s"], c["trino_process_cpu_s"]] for c in concurrency]))
    profiles = environment.get("profiles") or []
    if profiles:
        out.append("<h2>Profiles</h2><p>JFR execution samples of Trino and of the path's storage-side JVMs while one query ran "
                   "over and over (<code>--profile</code>), summarised by benchmarks/side-by-side/profile_summary.py.</p>")
        for profile in profiles:
            path = os.path.join(directory, profile["summary"])
            if os.path.exists(path):
                with open(path) as file:
                    text = file.read()
                out.append(f"<details><summary>{_h(profile['query'])} on {_h(profile['path'])}: {_h(profile['process'])}</summary>"
                           f"<pre>{_h(text)}</pre></details>")
    out.append("<h2>Machine, versions, run</h2>")
    facts = [[key, json.dumps(value) if isinstance(value, (list, dict)) else value] for key, value in environment.items() if key != "profiles"]
    out.append(_table(["what", "value"], facts))
    if calibration:
        out.append("<h3>Link</h3>" + _table(["rate", "one TCP stream, bit/s", "of the rate", "qdisc (host end)", "qdisc (namespace end)"],
                                           [[c["rate"], f"{c['tcp_bits_per_s']:,}", f"{c['fraction_of_rate']:.1%}", c["qdisc_host"], c["qdisc_ns"]]
                                            for c in calibration]))
    out.append(f"<p>{len(runs)} runs in runs.csv; this page was generated by benchmarks/side-by-side/report.py from the CSV files beside it.</p>")
    out.append("</body></html>")
    return "\n".join(out)


def render(directory):
    """Writes summary.csv, summary.txt and report.html from the raw results; returns the summary text."""
    runs = read_csv(os.path.join(directory, "runs.csv"))
    concurrency = read_csv(os.path.join(directory, "concurrency.csv"))
    calibration = read_csv(os.path.join(directory, "link.csv"))
    environment_file = os.path.join(directory, "environment.json")
    environment, notes = {}, ""
    if os.path.exists(environment_file):
        with open(environment_file) as file:
            environment = json.load(file)
    notes_file = os.path.join(directory, "notes.txt")
    if os.path.exists(notes_file):
        with open(notes_file) as file:
            notes = file.read()
    rows = summarize(runs)
    write_csv(os.path.join(directory, "summary.csv"), rows)
    summary = summary_text(rows, concurrency, calibration, environment)
    with open(os.path.join(directory, "summary.txt"), "w") as file:
        file.write(summary + "\n")
    with open(os.path.join(directory, "report.html"), "w") as file:
        file.write(render_html(directory, rows, runs, concurrency, calibration, environment, notes, summary))
    return summary


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: report.py RESULTS_DIR")
    print(render(sys.argv[1]))
