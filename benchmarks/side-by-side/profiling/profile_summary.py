"""Summarises async-profiler's collapsed stacks, one file per process: samples, the share of the
JIT compiler's and the garbage collector's threads, and the hottest leaf frames.

    python3 profile_summary.py FILE.collapsed...
"""
import collections
import os
import sys


def summarize(path, top=12):
    total = 0
    jit = 0
    gc = 0
    leaves = collections.Counter()
    with open(path, encoding="utf-8") as file:
        for line in file:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            samples = int(count)
            frames = stack.split(";")
            total += samples
            if any("CompileBroker" in frame for frame in frames):
                jit += samples
            elif any(frame.startswith(("G1", "GCTaskThread", "WorkerThread::run", "ConcurrentGCThread")) for frame in frames):
                gc += samples
            leaves[frames[-1]] += samples
    lines = [f"{os.path.basename(path)}: {total} samples, JIT compiler {share(jit, total)}, GC {share(gc, total)}"]
    for frame, samples in leaves.most_common(top):
        lines.append(f"  {share(samples, total):>6} {frame[:140]}")
    return "\n".join(lines)


def share(part, total):
    return f"{100 * part / total:.1f}%" if total else "-"


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("\n\n".join(summarize(path) for path in sys.argv[1:]))
