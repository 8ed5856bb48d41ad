#!/usr/bin/env python3
"""Where a JVM's CPU went, from a JFR recording's execution samples:

    python3 benchmarks/side-by-side/profile_summary.py RECORDING.jfr [more.jfr ...]

For each recording: the share of samples by component (TLS, gRPC/Netty, Parquet decoding, nsc's
scan code, Trino's operators, the S3 client, ...: the first frame from the top that is not the
JDK's own decides), the methods that were on top most often (self) and the methods of those
components on the most stacks (inclusive).
Reads `jfr print --json` (the JDK's jfr tool). Standard library only.
"""
import collections
import json
import subprocess
import sys

# what a frame belongs to, by the first matching prefix of its class name
CATEGORIES = [
    ("TLS and crypto", ("sun.security.", "com.sun.crypto.", "javax.crypto.", "io.netty.handler.ssl.", "io.grpc.netty.shaded.io.netty.handler.ssl.")),
    ("compression", ("io.airlift.compress.", "com.github.luben.zstd.", "io.trino.hive.formats.compression.", "net.jpountz.")),
    ("Parquet decoding", ("io.trino.parquet.", "org.apache.parquet.")),
    ("nsc scan, filter, aggregation", ("io.nsc.parquet.", "io.nsc.storage.")),
    ("nsc connector", ("io.nsc.",)),
    ("gRPC and Netty", ("io.grpc.", "io.netty.", "com.google.protobuf.")),
    ("S3 client", ("software.amazon.awssdk.", "org.apache.http.", "io.trino.filesystem.")),
    ("s3proxy and jclouds", ("org.gaul.", "org.jclouds.")),
    ("Jetty (HTTP)", ("org.eclipse.jetty.",)),
    ("Trino operators and blocks", ("io.trino.operator.", "io.trino.spi.", "io.trino.$gen.", "io.trino.sql.gen.", "io.trino.type.", "io.airlift.slice.")),
    ("Trino coordination and libraries", ("io.trino.", "io.airlift.", "com.fasterxml.", "com.google.common.", "org.glassfish.",
                                          "io.opentelemetry.", "io.jsonwebtoken.", "jakarta.", "org.weakref.")),
    ("JDK", ("java.", "jdk.", "sun.", "com.sun.")),
]
# categories that say little about where a path spends its CPU: shown, never blamed
GENERIC = {"JDK", "Trino coordination and libraries", "other"}
# frames on the stack of every split Trino runs: left out of the inclusive list
DRIVER_FRAMES = ("io.trino.operator.Driver", "io.trino.operator.WorkProcessor", "io.trino.$gen.Trino_")


def category(class_name):
    for name, prefixes in CATEGORIES:
        if class_name.startswith(prefixes):
            return name
    return "other"


def attributed_category(stack_classes):
    """The category of the first frame from the top that is not the JDK's own (a HashMap.get or
    a native downcall counts for the code that called it); JDK when no frame is."""
    for class_name in stack_classes:
        name = category(class_name)
        if name != "JDK":
            return name
    return "JDK"


def _frame_name(frame):
    method = frame.get("method") or {}
    owner = method.get("type") or {}
    class_name = str(owner.get("name", "?")).replace("/", ".")
    return class_name, f"{class_name}.{method.get('name', '?')}"


def samples(recording):
    """[([classes, top first], [method names, top first])] of every execution sample."""
    output = subprocess.run(["jfr", "print", "--json", "--stack-depth", "64", "--events", "jdk.ExecutionSample", recording],
                            capture_output=True, text=True, check=True).stdout
    events = json.loads(output)["recording"]["events"]
    result = []
    for event in events:
        frames = ((event.get("values") or {}).get("stackTrace") or {}).get("frames") or []
        if not frames:
            continue
        names = [_frame_name(frame) for frame in frames]
        result.append(([class_name for class_name, _ in names], [name for _, name in names]))
    return result


def summarize(recording, top=15):
    taken = samples(recording)
    if not taken:
        return f"{recording}: no execution samples\n"
    by_category = collections.Counter(attributed_category(classes) for classes, _ in taken)
    self_time = collections.Counter(stack[0] for _, stack in taken)
    inclusive = collections.Counter()
    for classes, stack in taken:
        # the JDK's and Trino's scheduling frames are on nearly every stack and tell nothing
        inclusive.update({name for class_name, name in zip(classes, stack)
                          if category(class_name) not in GENERIC and not class_name.startswith(DRIVER_FRAMES)})
    total = len(taken)
    lines = [f"{recording}: {total} execution samples (Java threads running Java code; 10-20 ms apart per thread)", "",
             "by component (of the first frame from the top that is not the JDK's):"]
    lines += [f"  {count / total:6.1%}  {name}" for name, count in by_category.most_common()]
    lines += ["", "methods on top (self):"]
    lines += [f"  {count / total:6.1%}  {name}" for name, count in self_time.most_common(top)]
    lines += ["", "methods on the stack (inclusive; the JDK's, Trino's coordination and driver frames left out):"]
    lines += [f"  {count / total:6.1%}  {name}" for name, count in inclusive.most_common(top)]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: profile_summary.py RECORDING.jfr [...]")
    for path in sys.argv[1:]:
        print(summarize(path))
