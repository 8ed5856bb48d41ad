"""The facts every result file records about the machine it was measured on: the commit, the CPU
model, the CPUs the benchmark may use, and the load average (taken at start and at end, so a
figure from a loaded machine shows as one). Standard library only."""
import os
import platform
import subprocess

HOME = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_text(path):
    """A file's text, or "" where it cannot be read (not Linux, no such process)."""
    try:
        with open(path) as file:
            return file.read()
    except OSError:
        return ""


def _field(text, name):
    return next((line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith(name)), "")


def commit():
    head = subprocess.run(["git", "-C", HOME, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", HOME, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True).stdout.strip()
    return (head or "unknown") + (" (uncommitted changes)" if dirty else "")


def cpu_model():
    return _field(read_text("/proc/cpuinfo"), "model name") or platform.processor() or "unknown"


def cpu_set():
    return _field(read_text("/proc/self/status"), "Cpus_allowed_list") or "unknown"


def load_average():
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def header_lines(command, load_at_start):
    """Comment lines for the top of a result file."""
    return [
        f"# {command}",
        f"# commit {commit()}; CPU {cpu_model()}, {os.cpu_count()} CPUs, this run on CPUs {cpu_set()}; "
        f"memory {_field(read_text('/proc/meminfo'), 'MemTotal')}",
        f"# load average at start {load_at_start}, at end {load_average()}",
    ]
