"""Whether two paths returned the same answer to a query.

Doubles are compared to about 9 significant digits (a sum over millions of doubles differs in its
last bits with the order of addition); rows are compared as a multiset; and when the query ends
in ORDER BY, the sequence of its sort keys must be the same too, so rows tied on every sort key
may come in any order but no row may be out of place.

Standard library only.
"""
import math
import re

REL_TOLERANCE = 1e-9


def _canonical(value):
    """A sortable, hashable form of a value; doubles rounded to 6 significant digits, only to
    pair rows up: equality is decided on the exact values below."""
    if isinstance(value, float):
        if math.isnan(value):
            return (1, "nan")
        return (1, float(f"{value:.6g}"))
    if value is None:
        return (0, "")
    if isinstance(value, (int, bool)):
        return (1, float(value))
    return (2, str(value))


def values_equal(left, right):
    if isinstance(left, float) or isinstance(right, float):
        if left is None or right is None:
            return left is right
        if isinstance(left, str) or isinstance(right, str):
            return False
        if math.isnan(left) or math.isnan(right):
            return math.isnan(left) and math.isnan(right)
        return math.isclose(left, right, rel_tol=REL_TOLERANCE, abs_tol=1e-9)
    return left == right


def rows_equal(left, right):
    return len(left) == len(right) and all(values_equal(a, b) for a, b in zip(left, right))


def order_by_items(sql):
    """The first word of each item of the query's last top-level ORDER BY (a column name, an
    alias or an ordinal), or None when it has none."""
    depth, last = 0, None
    upper = sql.upper()
    for match in re.finditer(r"\(|\)|\bORDER\s+BY\b", upper):
        token = match.group(0)
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        elif depth == 0:
            last = match.end()
    if last is None:
        return None
    clause = re.split(r"\bLIMIT\b|\bOFFSET\b|\bFETCH\b", sql[last:], flags=re.IGNORECASE)[0]
    items = []
    for item in clause.split(","):
        match = _ORDER_ITEM.fullmatch(item.strip())
        if not match:
            return []  # an expression: its place in the output is not known
        items.append(match.group(1).lower())
    return items


_ORDER_ITEM = re.compile(r"(\w+)(?:\s+(?:ASC|DESC))?(?:\s+NULLS\s+(?:FIRST|LAST))?", re.IGNORECASE)


def order_by_columns(sql, columns):
    """Indexes of the output columns the query's last top-level ORDER BY sorts by, or None when
    there is no such clause or an item is not an output column (then order is not checked)."""
    items = order_by_items(sql)
    if not items:
        return None
    names = [name.lower() for name in columns]
    indexes = []
    for key in items:
        if key.isdigit():
            indexes.append(int(key) - 1)
        elif key in names:
            indexes.append(names.index(key))
        else:
            return None
    return indexes


def compare(reference_rows, rows, order_columns=None):
    """None when the answers are the same, else a short description of the first difference."""
    if len(reference_rows) != len(rows):
        return f"{len(rows)} rows, expected {len(reference_rows)}"
    if order_columns is not None:
        for index, (expected, actual) in enumerate(zip(reference_rows, rows)):
            expected_key = [expected[column] for column in order_columns]
            actual_key = [actual[column] for column in order_columns]
            if not rows_equal(expected_key, actual_key):
                return f"row {index + 1} out of order: sort key {actual_key}, expected {expected_key}"
    expected_sorted = sorted(reference_rows, key=lambda row: [_canonical(value) for value in row])
    actual_sorted = sorted(rows, key=lambda row: [_canonical(value) for value in row])
    for expected, actual in zip(expected_sorted, actual_sorted):
        if not rows_equal(expected, actual):
            return f"row {actual} differs from {expected}"
    return None
