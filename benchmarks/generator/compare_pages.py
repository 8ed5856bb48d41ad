#!/usr/bin/env python3
"""Compares two directories of Parquet files written by the TPC-H generator: each file's bytes
before its footer (every page of every column chunk) must be equal, and its footer must hold the
same bytes, in any order. Footers differ from one JVM to the next only in order: trino-parquet
lists a column chunk's encodings from a hash set.

    python3 benchmarks/generator/compare_pages.py DIR-A DIR-B
"""
import os
import struct
import sys


def parquet_files(root):
    return sorted(os.path.relpath(os.path.join(directory, name), root)
                  for directory, _, names in os.walk(root) for name in names if name.endswith('.parquet'))


def split(path):
    data = open(path, 'rb').read()
    footer_length = struct.unpack('<i', data[-8:-4])[0]
    return data[:len(data) - 8 - footer_length], data[len(data) - 8 - footer_length:]


def main(first, second):
    files = parquet_files(first)
    if files != parquet_files(second):
        print(f'different files: {files} and {parquet_files(second)}')
        return 1
    differing = 0
    for name in files:
        pages_a, footer_a = split(os.path.join(first, name))
        pages_b, footer_b = split(os.path.join(second, name))
        pages_equal = pages_a == pages_b
        footers_alike = sorted(footer_a) == sorted(footer_b)
        print(f'{name}: {len(pages_a)} bytes of pages {"equal" if pages_equal else "DIFFER"}, '
              f'footer {"alike" if footers_alike else "DIFFERS"}')
        differing += not (pages_equal and footers_alike)
    print(f'{len(files)} files, {differing} differing')
    return 1 if differing else 0


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
