#!/usr/bin/env python3
"""Writes the Parquet fixtures of nsc-protocol's tests into src/test/resources/parquet/.

Run from anywhere:  python3 nsc-protocol/src/test/python/make_fixtures.py
Needs pyarrow (pip install pyarrow). The files are committed, so only rerun this when the
fixtures change; README.md in the output directory says what each file holds.

Besides the Parquet files it writes the expected contents, computed here independently of the
Java code under test:
  all_types.expected.json        columns (name, Trino type), row groups, and per row each value
                                 as a plain string and as a Trino SQL literal
  all_types.expected.csv         one row per Parquet row, one Trino SQL literal per cell (NULL for null)
  all_types.expected_stats.csv   per row group and column: the stats keys nsc must derive
"""

import csv
import datetime
import decimal
import json
import math
import random
import struct
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

OUT = Path(__file__).resolve().parents[1] / "resources" / "parquet"
ROWS_PER_GROUP = 3
NAN = float("nan")
D = decimal.Decimal
decimal.getcontext().prec = 60
EPOCH_DATE = datetime.date(1970, 1, 1)
EPOCH = datetime.datetime(1970, 1, 1)
LONG_MIN = -(2 ** 63)
LONG_MAX = 2 ** 63 - 1

# 9 rows, 3 row groups of 3. Row group 0: ordinary values, row 1 null everywhere but id.
# Row group 1: extremes of each type, -0.0/0.0. Row group 2: NaN, strings sharing their first
# 8 bytes, a column that is all null (c_varbinary), min == max (c_tinyint), long decimals
# around the saturation point, negative timestamps that floor.
UUIDS = [uuid.UUID(int=i * 0x0123456789ABCDEF0123456789ABCDEF % (2 ** 128)) for i in range(1, 10)]

COLUMNS = [
    # name, arrow type, Trino type, values
    ("id", pa.int32(), "integer", list(range(9))),
    ("c_boolean", pa.bool_(), "boolean", [True, None, False, True, True, True, False, None, False]),
    ("c_tinyint", pa.int8(), "tinyint", [1, None, -1, -128, 127, 0, 5, 5, 5]),
    ("c_smallint", pa.int16(), "smallint", [100, None, -100, -32768, 32767, 0, 7, None, 8]),
    ("c_integer", pa.int32(), "integer", [1000, None, -1000, -2 ** 31, 2 ** 31 - 1, 0, 42, 43, None]),
    ("c_bigint", pa.int64(), "bigint", [10 ** 12, None, -10 ** 12, LONG_MIN, LONG_MAX, 0, 1, 2, 3]),
    ("c_real", pa.float32(), "real", [1.5, None, -2.25, -0.0, 0.0, 3.5, NAN, NAN, None]),
    ("c_double", pa.float64(), "double", [1.5, None, -2.25, -0.0, 0.0, -0.0, NAN, 1e300, -math.inf]),
    ("c_decimal_9_2", pa.decimal128(9, 2), "decimal(9,2)",
     [D("1234567.89"), None, D("-0.01"), D("-9999999.99"), D("9999999.99"), D("0.00"), D("1.00"), D("2.00"), D("3.00")]),
    ("c_decimal_18_4", pa.decimal128(18, 4), "decimal(18,4)",
     [D("12345678901234.5678"), None, D("-1.0000"), D("-99999999999999.9999"), D("99999999999999.9999"), D("0.0000"),
      D("0.0001"), D("0.0001"), D("0.0002")]),
    ("c_decimal_38_10", pa.decimal128(38, 10), "decimal(38,10)",
     [D("1234567890123456789012345678.0123456789"), None, D("-0.0000000001"),
      D("-9999999999999999999999999999.9999999999"), D("9999999999999999999999999999.9999999999"), D("0E-10"),
      # unscaled 15000000000, 2^63 - 1 (the largest exact key), 2^63 (saturates)
      D("1.5000000000"), D("922337203.6854775807"), D("922337203.6854775808")]),
    ("c_varchar", pa.string(), "varchar",
     ["hello", None, "", "ünïcödé", "zzz", "it's", "abcdefgh1", "abcdefgh2", "abcdefgh10"]),
    ("c_varbinary", pa.binary(), "varbinary",
     [b"\x00\x01", None, b"", b"\xff" * 10, b"\x7f", b"\x80", None, None, None]),
    ("c_date", pa.date32(), "date",
     [datetime.date(2024, 1, 15), None, datetime.date(1970, 1, 1), datetime.date(1, 1, 1), datetime.date(9999, 12, 31),
      datetime.date(1969, 12, 31), datetime.date(2000, 2, 29), datetime.date(2000, 2, 29), datetime.date(2000, 3, 1)]),
    # times and timestamps as integers in their unit, so nothing is lost on the way
    ("c_time_ms", pa.time32("ms"), "time(3)",
     [45296789, None, 0, 0, 86399999, 1, 43200000, 43200000, 43200001]),
    ("c_time_us", pa.time64("us"), "time(6)",
     [45296789123, None, 0, 0, 86399999999, 1, 43200000000, 43200000000, 43200000001]),
    ("c_time_ns", pa.time64("ns"), "time(9)",
     [45296789123456, None, 0, 0, 86399999999999, 1, 43200000000000, 43200000000001, 43200000000999]),
    ("c_timestamp_ms", pa.timestamp("ms"), "timestamp(3)",
     [1700000000123, None, 0, -62135596800000, 253402300799999, -1, 1, 2, 3]),
    ("c_timestamp_us", pa.timestamp("us"), "timestamp(6)",
     [1700000000123456, None, 0, -62135596800000000, 253402300799999999, -1, 1, 2, 3]),
    ("c_timestamp_ns", pa.timestamp("ns"), "timestamp(9)",
     # nanos do not reach year 1 or 9999 in an int64; -1 and -999 floor to the micro -1, 1001 to 1
     [1700000000123456789, None, 0, LONG_MIN, LONG_MAX, -1, -999, 1001, 999]),
    ("c_timestamptz_ms", pa.timestamp("ms", tz="UTC"), "timestamp(3) with time zone",
     [1700000000123, None, 0, -62135596800000, 253402300799999, -1, 1, 2, 3]),
    ("c_timestamptz_us", pa.timestamp("us", tz="UTC"), "timestamp(6) with time zone",
     [1700000000123456, None, 0, -62135596800000000, 253402300799999999, -1, 1, 2, 3]),
    ("c_timestamptz_ns", pa.timestamp("ns", tz="UTC"), "timestamp(9) with time zone",
     [1700000000123456789, None, 0, LONG_MIN, LONG_MAX, -1, -999, 1001, 999]),
    ("c_uuid", pa.uuid(), "uuid", [u.bytes if i % 4 != 1 else None for i, u in enumerate(UUIDS)]),
]

CODECS = ["snappy", "gzip", "zstd", "lz4", "none"]


def arrow_table(columns=COLUMNS):
    fields, arrays = [], []
    for name, arrow_type, _, values in columns:
        nullable = name != "id"
        fields.append(pa.field(name, arrow_type, nullable=nullable))
        arrays.append(pa.array(values, arrow_type))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def write(table, name, **options):
    options.setdefault("row_group_size", ROWS_PER_GROUP)
    # version 2.6 keeps nanosecond timestamps and the INT(8/16) annotations as they are
    options.setdefault("version", "2.6")
    pq.write_table(table, OUT / name, **options)


# ---------------------------------------------------------------------------
# Expected values: plain strings and Trino literals
# ---------------------------------------------------------------------------

def quote(text):
    return "'" + text.replace("'", "''") + "'"


def format_fraction(value, digits):
    """value in units of 10^-digits since an epoch -> (whole units, fraction string)."""
    whole, fraction = divmod(value, 10 ** digits)
    return whole, (("." + str(fraction).rjust(digits, "0")) if digits else "")


def format_timestamp(value, digits):
    seconds, fraction = format_fraction(value, digits)
    t = EPOCH + datetime.timedelta(seconds=seconds)
    return "%04d-%02d-%02d %02d:%02d:%02d%s" % (t.year, t.month, t.day, t.hour, t.minute, t.second, fraction)


def format_time(value, digits):
    seconds, fraction = format_fraction(value, digits)
    return "%02d:%02d:%02d%s" % (seconds // 3600, seconds // 60 % 60, seconds % 60, fraction)


def format_float(value, trino_type):
    if math.isnan(value):
        return "NaN", "nan()" if trino_type == "double" else "CAST(nan() AS real)"
    if math.isinf(value):
        text = "Infinity" if value > 0 else "-Infinity"
        literal = "infinity()" if value > 0 else "-infinity()"
        return text, literal if trino_type == "double" else "CAST(%s AS real)" % literal
    text = repr(value)
    return text, "%s %s" % (trino_type.upper(), quote(text))


def plain_and_literal(trino_type, value):
    """(plain string, Trino literal) for one non-null value."""
    if trino_type == "boolean":
        return str(value).lower(), str(value).lower()
    if trino_type in ("tinyint", "smallint", "integer", "bigint"):
        return str(value), "%s %s" % (trino_type.upper(), quote(str(value)))
    if trino_type in ("real", "double"):
        return format_float(value, trino_type)
    if trino_type.startswith("decimal"):
        scale = int(trino_type.split(",")[1].rstrip(")"))
        text = format(value.quantize(D(1).scaleb(-scale)), "f")
        return text, "CAST(%s AS %s)" % (quote(text), trino_type)
    if trino_type == "varchar":
        return value, quote(value)
    if trino_type == "varbinary":
        return value.hex(), "X'%s'" % value.hex().upper()
    if trino_type == "date":
        return value.isoformat(), "DATE '%s'" % value.isoformat()
    if trino_type.startswith("time("):
        digits = int(trino_type[5])
        text = format_time(value, digits)
        return text, "TIME '%s'" % text
    if trino_type.startswith("timestamp("):
        digits = int(trino_type[10])
        text = format_timestamp(value, digits)
        if trino_type.endswith("with time zone"):
            text += " UTC"
        return text, "TIMESTAMP '%s'" % text
    if trino_type == "uuid":
        text = str(uuid.UUID(bytes=value))
        return text, "UUID '%s'" % text
    raise ValueError(trino_type)


# ---------------------------------------------------------------------------
# Expected stats keys, computed the way nsc's KeyKind/StatsKeys define them
# ---------------------------------------------------------------------------

def double_key(value):
    value = 0.0 if value == 0.0 else value
    bits = struct.unpack("<q", struct.pack("<d", value))[0]
    return bits ^ LONG_MAX if bits < 0 else bits


def prefix_key(data):
    return int.from_bytes(data[:8].ljust(8, b"\x00"), "big") - 2 ** 63


def saturate(value):
    return max(LONG_MIN, min(LONG_MAX, value))


def key(trino_type, value):
    """The stats key of a non-null value, or None when the type keeps no min/max."""
    if trino_type == "boolean":
        return int(value)
    if trino_type in ("tinyint", "smallint", "integer", "bigint"):
        return value
    if trino_type in ("real", "double"):
        return double_key(value)
    if trino_type.startswith("decimal"):
        scale = int(trino_type.split(",")[1].rstrip(")"))
        return saturate(int(value.scaleb(scale)))
    if trino_type == "varchar":
        return prefix_key(value.encode("utf-8"))
    if trino_type == "varbinary":
        return prefix_key(value)
    if trino_type == "date":
        return (value - EPOCH_DATE).days
    if trino_type.startswith("time("):
        digits = int(trino_type[5])
        return value * 10 ** (12 - digits)
    if trino_type.startswith("timestamp("):
        digits = int(trino_type[10])
        return value * 10 ** (6 - digits) if digits <= 6 else value // 10 ** (digits - 6)
    if trino_type == "uuid":
        return None
    raise ValueError(trino_type)


def sort_value(trino_type, value):
    if trino_type == "varchar":
        return value.encode("utf-8")
    return value


def expected_stats(columns=COLUMNS):
    rows = []
    row_count = len(columns[0][3])
    for group in range(0, row_count // ROWS_PER_GROUP):
        for index, (name, _, trino_type, values) in enumerate(columns):
            chunk = values[group * ROWS_PER_GROUP:(group + 1) * ROWS_PER_GROUP]
            nulls = sum(value is None for value in chunk)
            present = [value for value in chunk if value is not None
                       and not (isinstance(value, float) and math.isnan(value))]
            has_min_max = bool(present) and key(trino_type, present[0]) is not None
            if has_min_max:
                low = key(trino_type, min(present, key=lambda v: sort_value(trino_type, v)))
                high = key(trino_type, max(present, key=lambda v: sort_value(trino_type, v)))
            else:
                low = high = ""
            rows.append([group, index, name, str(has_min_max).lower(), low, high, nulls])
    return rows


def write_expected():
    row_count = len(COLUMNS[0][3])
    rows = []
    for row in range(row_count):
        cells = []
        for name, _, trino_type, values in COLUMNS:
            value = values[row]
            if value is None:
                cells.append({"value": None, "literal": "NULL"})
            else:
                plain, literal = plain_and_literal(trino_type, value)
                cells.append({"value": plain, "literal": literal})
        rows.append(cells)

    document = {
        "file": "all_types.parquet",
        "pyarrow": pa.__version__,
        "columns": [{"name": name, "type": trino_type} for name, _, trino_type, _ in COLUMNS],
        "row_groups": [ROWS_PER_GROUP] * (row_count // ROWS_PER_GROUP),
        "rows": rows,
    }
    with open(OUT / "all_types.expected.json", "w", encoding="utf-8") as out:
        json.dump(document, out, ensure_ascii=False, indent=1)
        out.write("\n")

    with open(OUT / "all_types.expected.csv", "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([name for name, _, _, _ in COLUMNS])
        for cells in rows:
            writer.writerow([cell["literal"] for cell in cells])

    with open(OUT / "all_types.expected_stats.csv", "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["row_group", "column", "name", "has_min_max", "min_key", "max_key", "null_count"])
        writer.writerows(expected_stats())


# ---------------------------------------------------------------------------
# The files
# ---------------------------------------------------------------------------

def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.parquet"):
        old.unlink()
    table = arrow_table()

    # pyarrow's defaults: snappy, data page v1, dictionary on
    write(table, "all_types.parquet")
    for codec in CODECS:
        for page_version in ("1.0", "2.0"):
            for dictionary in (True, False):
                name = "all_types_%s_v%s_%s.parquet" % (codec, page_version[0], "dict" if dictionary else "plain")
                write(table, name, compression=codec, data_page_version=page_version, use_dictionary=dictionary)
    write_expected()

    # no statistics at all: nothing may be pruned
    write(table, "no_stats.parquet", write_statistics=False)
    # short decimals as INT32/INT64 instead of FIXED_LEN_BYTE_ARRAY
    decimals = [column for column in COLUMNS if column[0] in ("id", "c_decimal_9_2", "c_decimal_18_4")]
    write(arrow_table(decimals), "decimals_as_int.parquet", store_decimal_as_integer=True)
    # legacy INT96 timestamps: typed timestamp(9), no min/max
    int96 = [column for column in COLUMNS if column[0] in ("id", "c_timestamp_ns")]
    write(arrow_table(int96), "int96.parquet", use_deprecated_int96_timestamps=True)

    # an empty file (no row groups) and one with a 0-row row group between two others
    schema = pa.schema([pa.field("k", pa.int64()), pa.field("s", pa.string())])
    pq.ParquetWriter(OUT / "empty.parquet", schema).close()
    with pq.ParquetWriter(OUT / "empty_row_group.parquet", schema, use_dictionary=False) as writer:
        writer.write_table(pa.table({"k": [1, 2], "s": ["a", None]}, schema=schema))
        writer.write_table(pa.table({"k": [], "s": []}, schema=schema))
        writer.write_table(pa.table({"k": [3], "s": ["c"]}, schema=schema))

    # refused files
    write(pa.table({
        "id": pa.array([1, 2], pa.int32()),
        "s": pa.array([{"a": 1, "b": "x"}, None], pa.struct([("a", pa.int32()), ("b", pa.string())])),
        "l": pa.array([[1, 2], []], pa.list_(pa.int64())),
        "m": pa.array([[("k", 1)], None], pa.map_(pa.string(), pa.int32())),
    }), "nested.parquet")
    write(pa.table({"id": pa.array([1, 2], pa.int32()), "u": pa.array([1, 4000000000], pa.uint32())}), "unsigned.parquet")
    write(pa.table({"id": pa.array([1, 2], pa.int32()), "h": pa.array([1.5, None], pa.float16())}), "float16.parquet")
    write(pa.table([pa.array([1, 2], pa.int32()), pa.array([3, 4], pa.int32())], names=["Value", "VALUE"]), "duplicate_names.parquet")

    # 10 row groups of a sorted bigint (0..999, 100 per row group) and a string
    keys = list(range(1000))
    write(pa.table({"k": pa.array(keys, pa.int64()), "s": pa.array(["row-%04d" % k for k in keys])}),
          "sorted_ints.parquet", row_group_size=100)

    # page indexes (column and offset indexes) over small pages: a sorted bigint, the same values
    # shuffled and a string, 2 row groups of 10,000 rows, no dictionary so every page holds values
    ids = list(range(20000))
    shuffled = random.Random(7).sample(ids, len(ids))
    write(pa.table({"id": pa.array(ids, pa.int64()), "shuffled": pa.array(shuffled, pa.int64()),
                    "name": pa.array(["name-%05d" % i for i in ids])}),
          "page_index.parquet", row_group_size=10000, use_dictionary=False, data_page_size=4096,
          write_page_index=True, compression="zstd")

    print("wrote %d files with pyarrow %s into %s" % (len(list(OUT.glob("*.parquet"))), pa.__version__, OUT))


if __name__ == "__main__":
    main()
