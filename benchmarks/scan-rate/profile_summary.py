#!/usr/bin/env python3
"""Summarizes an async-profiler profile in collapsed form (one stack per line, frames joined by
';', then a sample count) by component: the scan threads' samples (stacks through ScanCall) and
the native ZSTD decompressor's, which async-profiler cannot walk back into Java (aircompressor
calls it through the FFM API, so its stacks start at [unknown_Java] in a library aircompressor
unpacks to a temporary file named zstd*). Standard library only.

    python3 benchmarks/scan-rate/profile_summary.py PROFILE.collapsed
"""
import collections
import sys

COMPONENTS = [
    ("ZSTD decompression", lambda frame: "zstd" in frame.lower() or "/compress/" in frame),
    ("trino-parquet decoding", lambda frame: frame.startswith("io/trino/parquet/")),
    ("nsc filter, computed values, aggregation", lambda frame: frame.startswith("io/nsc/parquet/")),
    ("Trino blocks", lambda frame: frame.startswith("io/trino/spi/")),
    ("checksums", lambda frame: "checksum" in frame.lower() or "crc32" in frame.lower()),
    ("zeroing new arrays (memset)", lambda frame: frame.startswith("__memset")),
    ("array copies", lambda frame: "arraycopy" in frame or "copyMemory" in frame),
    ("reading the file (pread)", lambda frame: frame.startswith("__pread")),
    ("gRPC and Netty", lambda frame: "grpc" in frame or "netty" in frame),
]


def component(frames):
    # the leaf frame decides, except that anything under the decompressor is decompression
    if any(COMPONENTS[0][1](frame) for frame in frames):
        return COMPONENTS[0][0]
    leaf = frames[-1]
    for name, matches in COMPONENTS[1:]:
        if matches(leaf):
            return name
    # a JDK or JVM leaf is charged to the nearest caller that names a component
    for frame in reversed(frames[:-1]):
        for name, matches in COMPONENTS[1:5]:
            if matches(frame):
                return name + " (in the JDK)"
    return "other"


def main(path):
    scan = collections.Counter()
    native_zstd = 0
    total = 0
    with open(path) as file:
        for line in file:
            stack, count = line.rstrip("\n").rsplit(" ", 1)
            frames = stack.split(";")
            count = int(count)
            total += count
            if any("ScanCall" in frame for frame in frames):
                scan[component(frames)] += count
            elif frames[0] == "[unknown_Java]" and any("zstd" in frame.lower() for frame in frames):
                native_zstd += count
    scan_total = sum(scan.values())
    print("samples: %d in all; %d on scan threads (through ScanCall); %d in the native ZSTD library, "
          "whose callers the profiler cannot see" % (total, scan_total, native_zstd))
    print("scan CPU by component, counting the native ZSTD samples as the scans' (the uploads' one "
          "pass over the file is in them too, so this is an upper bound for decompression):")
    combined = collections.Counter(scan)
    combined["ZSTD decompression"] += native_zstd
    whole = sum(combined.values())
    for name, count in combined.most_common():
        print("  %5.1f%%  %6d  %s" % (100.0 * count / whole, count, name))


if __name__ == "__main__":
    main(sys.argv[1])
