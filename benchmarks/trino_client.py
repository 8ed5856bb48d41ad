"""What the benchmark scripts share: Trino's REST protocol, its units, and the raw CSV.

Standard library only, so the scripts run wherever the cluster does.
"""
import csv
import json
import os
import time
import urllib.request


def request(url, user, data=None, method="GET", session=None, timeout=3600, catalog=None, schema=None):
    headers = {"X-Trino-User": user}
    if session:
        headers["X-Trino-Session"] = session
    if catalog:
        headers["X-Trino-Catalog"] = catalog
    if schema:
        headers["X-Trino-Schema"] = schema
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    with urllib.request.urlopen(req, timeout=timeout) as response:
        return json.loads(response.read())


def run_query(server, user, sql, session=None, catalog=None, schema=None):
    """Runs a statement to completion; returns (query id, rows, wall seconds seen by the client)."""
    started = time.monotonic()
    result = request(server + "/v1/statement", user, sql.encode(), "POST", session=session, catalog=catalog, schema=schema)
    rows = []
    while True:
        rows.extend(result.get("data", []))
        if "error" in result:
            raise RuntimeError(result["error"]["message"])
        if "nextUri" not in result:
            return result["id"], rows, time.monotonic() - started
        result = request(result["nextUri"], user)


def data_size_bytes(text):
    units = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15}
    number, unit = text[:-2], text[-2:]
    if unit not in units:
        number, unit = text[:-1], text[-1:]
    return int(round(float(number) * units[unit]))


def duration_seconds(text):
    units = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600, "d": 86400}
    for unit in sorted(units, key=len, reverse=True):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * units[unit]
    raise ValueError(text)


def stages(stage):
    if stage is None:
        return
    yield stage
    for child in stage.get("subStages", []):
        yield from stages(child)


def connector_counters(info, split_metrics=(), connector_metrics=()):
    """Sums a query's split-source metrics (coordinator) and its page sources' connector metrics
    (workers) over all its stages; names absent from the query count 0."""
    counters = {name: 0 for name in list(split_metrics) + list(connector_metrics)}
    for stage in stages(info.get("outputStage")):
        stage_stats = stage["stageStats"]
        for node_metrics in stage_stats.get("splitSourceMetrics", {}).values():
            for name, metric in node_metrics.items():
                if name in split_metrics:
                    counters[name] += int(metric["total"])
        for operator in stage_stats.get("operatorSummaries", []):
            for name, metric in operator.get("connectorMetrics", {}).items():
                if name in connector_metrics:
                    counters[name] += int(metric["total"])
    return counters


def normalized(rows):
    """Doubles summed in another order differ in their last digits."""
    return [[float("%.9g" % field) if isinstance(field, float) else field for field in row] for row in rows]


def write_csv(path, records, header=()):
    """The records as CSV, after the header's comment lines (machine.header_lines) if any."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", newline="") as out:
        out.writelines(line + "\n" for line in header)
        writer = csv.DictWriter(out, fieldnames=list(records[0].keys()))
        writer.writeheader()
        writer.writerows(records)
