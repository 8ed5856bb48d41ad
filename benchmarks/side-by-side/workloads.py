"""The queries of the side-by-side benchmark. Every text names tables without catalog or schema,
so the same text runs on every path (nsc.tpch, hive.tpch, iceberg.tpch_iceberg).

Standard library only.
"""
import os
import random
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
TPCH_QUERY_DIR = os.path.join(HERE, "..", "..", "trino-nsc", "src", "test", "resources", "tpch")

# The selectivity sweep's points, as fractions of lineitem's rows (0, 0.01, 0.1, 1, 10, 50, 100%).
SELECTIVITIES = [0.0, 0.0001, 0.001, 0.01, 0.1, 0.5, 1.0]
PARTKEYS_PER_SCALE = 200_000  # l_partkey is uniform over 1..200,000 * scale
POINT_LOOKUPS = 5

# Every workload, in the order they run; "concurrency" is the 8 streams, run apart.
WORKLOADS = ["tpch", "selectivity", "point", "shapes", "topn", "join", "full", "concurrency"]


@dataclass
class Query:
    workload: str
    name: str
    sql: str
    # the fraction of lineitem's rows the predicate was chosen to match (selectivity sweep)
    selectivity: float = None
    column: str = ""  # the sweep's column: "sorted" (l_shipdate) or "unsorted" (l_partkey)
    params: dict = field(default_factory=dict)


def tpch_queries(names=None):
    result = []
    for number in range(1, 23):
        name = f"q{number:02d}"
        if names and name not in names:
            continue
        with open(os.path.join(TPCH_QUERY_DIR, f"{name}.sql")) as file:
            result.append(Query("tpch", name, file.read().strip().rstrip(";")))
    return result


def shipdate_thresholds(histogram, total_rows):
    """For each sweep point, the ship date D such that `l_shipdate < D` matches the fraction of
    rows closest to it (the column's values are days, so a fraction is met to within a day's
    rows; the query's count(*) records the fraction actually matched).

    histogram: [(date 'YYYY-MM-DD', rows)] ascending."""
    thresholds = {}
    for selectivity in SELECTIVITIES:
        if selectivity == 0.0:
            thresholds[selectivity] = histogram[0][0]  # before the first date: nothing
            continue
        if selectivity == 1.0:
            thresholds[selectivity] = None  # all rows: l_shipdate <= the last date
            continue
        target, cumulative, best, best_error = selectivity * total_rows, 0, None, None
        for index, (day, rows) in enumerate(histogram):
            # l_shipdate < day matches the rows of the days before it
            error = abs(cumulative - target)
            if index > 0 and (best_error is None or error < best_error):
                best, best_error = day, error
            cumulative += rows
        thresholds[selectivity] = best
    return thresholds


def selectivity_queries(scale, histogram, total_rows):
    """count(*) and a sum over lineitem at each sweep point, on the sorted column (l_shipdate)
    and on an unsorted one (l_partkey). The aggregate keeps the result a single row on every
    path, so the client never limits a path; the sum reads two more columns."""
    result = []
    thresholds = shipdate_thresholds(histogram, total_rows)
    last_day = histogram[-1][0]
    select = "SELECT count(*) AS matched, sum(l_extendedprice * (1 - l_discount)) AS revenue FROM lineitem WHERE "
    for selectivity in SELECTIVITIES:
        label = f"{selectivity * 100:g}%"
        day = thresholds[selectivity]
        predicate = f"l_shipdate <= DATE '{last_day}'" if day is None else f"l_shipdate < DATE '{day}'"
        result.append(Query("selectivity", f"sorted {label}", select + predicate, selectivity, "sorted"))
        keys = round(PARTKEYS_PER_SCALE * scale * selectivity)
        result.append(Query("selectivity", f"unsorted {label}", select + f"l_partkey <= {keys}", selectivity, "unsorted"))
    return result


def point_queries(scale, count=POINT_LOOKUPS, seed=13):
    """Whole rows of one order by l_orderkey, which is not what lineitem is sorted by: min/max
    prune nothing. TPC-H's order keys are sparse (8 of every 32), so keys are drawn among those
    that exist, with a fixed seed."""
    generator = random.Random(seed)
    orders = int(1_500_000 * scale)
    result = []
    for index in range(count):
        ordinal = generator.randrange(orders)
        key = (ordinal // 8) * 32 + ordinal % 8 + 1
        result.append(Query("point", f"point {index + 1}", f"SELECT * FROM lineitem WHERE l_orderkey = {key} ORDER BY l_linenumber",
                            params={"l_orderkey": key}))
    return result


def shape_queries():
    return [
        # TPC-H Q1's shape over plain columns: a grouped aggregation storage can compute
        Query("shapes", "q1 shape",
              "SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_price, "
              "avg(l_discount) AS avg_disc, count(*) AS count_order FROM lineitem WHERE l_shipdate <= DATE '1998-09-02' "
              "GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus"),
        # Q6's shape without its date range: predicates on two unsorted columns, one sum
        Query("shapes", "q6 shape",
              "SELECT sum(l_extendedprice * l_discount) AS revenue FROM lineitem "
              "WHERE l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"),
    ]


def topn_queries():
    # the sort keys end in (l_orderkey, l_linenumber), unique, so every path must return the same rows
    return [
        Query("topn", "top-n unsorted",
              "SELECT l_orderkey, l_linenumber, l_extendedprice FROM lineitem "
              "ORDER BY l_extendedprice DESC, l_orderkey, l_linenumber LIMIT 10"),
        Query("topn", "top-n sorted",
              "SELECT l_orderkey, l_linenumber, l_shipdate FROM lineitem "
              "ORDER BY l_shipdate DESC, l_orderkey, l_linenumber LIMIT 10"),
    ]


def join_queries():
    return [
        # 0.1% of the parts: the join's dynamic filter on l_partkey (unsorted) is a short IN list
        Query("join", "join part (brand, container)",
              "SELECT count(*) AS lines, sum(l_extendedprice) AS price FROM lineitem JOIN part ON l_partkey = p_partkey "
              "WHERE p_brand = 'Brand#23' AND p_container = 'MED BOX'"),
        # one week of orders: the dynamic filter on l_orderkey is a few thousand keys
        Query("join", "join orders (one week)",
              "SELECT count(*) AS lines, sum(l_extendedprice) AS price FROM lineitem JOIN orders ON l_orderkey = o_orderkey "
              "WHERE o_orderdate BETWEEN DATE '1995-03-01' AND DATE '1995-03-07'"),
    ]


def full_scan_queries():
    """Every column of every row of lineitem, under aggregates as cheap as Trino has, so that the
    scan, not the arithmetic, is the work; max(length(l_comment)) is a function no connector
    computes for Trino, so nsc ships the columns too (its aggregation pushdown is all or nothing)."""
    return [Query("full", "full scan",
                  "SELECT count(*) AS lines, sum(l_orderkey) AS orderkeys, sum(l_partkey) AS partkeys, sum(l_suppkey) AS suppkeys, "
                  "sum(l_linenumber) AS linenumbers, sum(l_quantity) AS quantity, sum(l_extendedprice) AS price, "
                  "sum(l_discount) AS discount, sum(l_tax) AS tax, max(l_returnflag) AS returnflag, max(l_linestatus) AS linestatus, "
                  "max(l_shipdate) AS shipdate, max(l_commitdate) AS commitdate, max(l_receiptdate) AS receiptdate, "
                  "max(l_shipinstruct) AS shipinstruct, max(l_shipmode) AS shipmode, max(length(l_comment)) AS comment_length "
                  "FROM lineitem")]


# The mix each of the concurrent streams runs, in its own shuffled order: short and long
# queries of every kind above, so that the streams contend for the link and the CPUs together.
CONCURRENCY_MIX = ["q01", "q03", "q05", "q06", "q12", "q14", "q19", "unsorted 1%", "sorted 1%", "point 1",
                   "join part (brand, container)", "top-n unsorted"]


def concurrency_streams(queries_by_name, streams, seed=13):
    """streams lists of Query: the mix, shuffled per stream with a fixed seed."""
    mix = [queries_by_name[name] for name in CONCURRENCY_MIX if name in queries_by_name]
    result = []
    for stream in range(streams):
        order = list(mix)
        random.Random(seed + stream).shuffle(order)
        result.append(order)
    return result
