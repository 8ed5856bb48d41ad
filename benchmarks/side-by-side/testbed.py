"""The testbed: a network namespace holding the storage side, one rate-limited veth link to it,
the processes on either side, and what is measured on them (link bytes, CPU seconds).

Everything here is Linux-only and needs root (ip netns, tc). Standard library only.
"""
import os
import re
import signal
import socket
import ssl
import subprocess
import threading
import time
import urllib.request

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def run(command, check=True, quiet=False):
    """Runs a command and returns its stdout; a failure names the command and its stderr."""
    result = subprocess.run(command, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}): {result.stderr.strip()}")
    if not quiet and result.returncode != 0:
        print(f"bench: ignored: {' '.join(command)}: {result.stderr.strip()}", flush=True)
    return result.stdout


# --- link rates ------------------------------------------------------------------------------

_UNITS = {"kbit": 1e3, "mbit": 1e6, "gbit": 1e9}


def parse_rate(text):
    """'250mbit', '1gbit', '4gbit' (tc's units) -> bits per second."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(kbit|mbit|gbit)", text.strip().lower())
    if not match:
        raise ValueError(f"a link rate is a number and kbit, mbit or gbit (like 250mbit or 1gbit), not '{text}'")
    return int(float(match.group(1)) * _UNITS[match.group(2)])


def rate_label(bits):
    for unit, factor in (("gbit", 1e9), ("mbit", 1e6), ("kbit", 1e3)):
        if bits >= factor and (bits / factor) == int(bits / factor):
            return f"{int(bits / factor)}{unit}"
    return f"{bits}bit"


def tbf_burst_bytes(bits):
    """The token bucket's depth: 2 ms at the rate, and at least 256 KiB, so that the veth's
    64 KiB GSO segments pass whole and the kernel timer's granularity does not cap the rate
    (256 KiB at 1 Gbit/s gave 0.93 Gbit/s on this kernel)."""
    return max(256 * 1024, int(bits / 8 * 0.002))


# --- the namespace and its link ---------------------------------------------------------------

class Link:
    """A veth pair between the host (Trino) and a namespace (storage side).

    tbf shapes the egress of both ends, so each direction is limited to the rate; netem, fq and
    fq_codel are not in this kernel, so there is no added latency beyond tbf's queue."""

    def __init__(self, netns, host_device, ns_device, host_address, ns_address):
        self.netns = netns
        self.host_device = host_device
        self.ns_device = ns_device
        self.host_address = host_address
        self.ns_address = ns_address
        self.created = False
        self.rate = None

    def in_ns(self, command):
        return ["ip", "netns", "exec", self.netns] + command

    def create(self):
        if self.netns in run(["ip", "netns", "list"]).split():
            pids = run(["ip", "netns", "pids", self.netns]).split()
            if pids:
                raise RuntimeError(f"network namespace {self.netns} exists and processes run in it ({' '.join(pids)}): "
                                   f"another benchmark, or one that was killed; stop them, then `ip netns del {self.netns}`")
            run(["ip", "netns", "del", self.netns])
        run(["ip", "link", "del", self.host_device], check=False, quiet=True)
        self.created = True
        run(["ip", "netns", "add", self.netns])
        run(["ip", "link", "add", self.host_device, "type", "veth", "peer", "name", self.ns_device])
        run(["ip", "link", "set", self.ns_device, "netns", self.netns])
        run(["ip", "addr", "add", f"{self.host_address}/30", "dev", self.host_device])
        run(["ip", "link", "set", self.host_device, "up"])
        run(self.in_ns(["ip", "addr", "add", f"{self.ns_address}/30", "dev", self.ns_device]))
        run(self.in_ns(["ip", "link", "set", self.ns_device, "up"]))
        run(self.in_ns(["ip", "link", "set", "lo", "up"]))

    def shape(self, bits):
        burst = tbf_burst_bytes(bits)
        for command in (["tc"], self.in_ns(["tc"])):
            device = self.host_device if command == ["tc"] else self.ns_device
            run(command + ["qdisc", "replace", "dev", device, "root", "tbf", "rate", str(bits), "burst", str(burst), "latency", "50ms"])
        self.rate = bits

    def unshape(self):
        run(["tc", "qdisc", "del", "dev", self.host_device, "root"], check=False, quiet=True)
        run(self.in_ns(["tc", "qdisc", "del", "dev", self.ns_device, "root"]), check=False, quiet=True)
        self.rate = None

    def qdiscs(self):
        return (run(["tc", "qdisc", "show", "dev", self.host_device]).strip(),
                run(self.in_ns(["tc", "qdisc", "show", "dev", self.ns_device])).strip())

    def counters(self):
        """(bytes received by the host end: storage to Trino, bytes sent: Trino to storage)."""
        base = f"/sys/class/net/{self.host_device}/statistics/"
        with open(base + "rx_bytes") as rx, open(base + "tx_bytes") as tx:
            return int(rx.read()), int(tx.read())

    def remove(self):
        if not self.created:
            return
        run(["ip", "link", "del", self.host_device], check=False, quiet=True)
        run(["ip", "netns", "del", self.netns], check=False, quiet=True)
        self.created = False

    def measure_throughput(self, seconds=3.0, port=17999):
        """Bits per second of one TCP stream from the namespace to the host through the link as
        shaped now: a Python sender inside, a reader here."""
        size = int(max(50e6, (self.rate or 8e9) / 8 * seconds))
        sender = subprocess.Popen(self.in_ns(["python3", "-c", _SENDER, self.ns_address, str(port), str(size)]),
                                  stdout=subprocess.PIPE, text=True)
        try:
            sender.stdout.readline()  # "ready"
            with socket.create_connection((self.ns_address, port), timeout=60) as connection:
                received, started = 0, time.monotonic()
                while True:
                    chunk = connection.recv(1 << 20)
                    if not chunk:
                        break
                    received += len(chunk)
                elapsed = time.monotonic() - started
        finally:
            sender.wait(timeout=60)
        return received * 8 / elapsed


_SENDER = """
import socket, sys
host, port, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind((host, port))
server.listen(1)
print("ready", flush=True)
connection, _ = server.accept()
block = b"x" * (1 << 20)
sent = 0
while sent < size:
    sent += connection.send(block[:min(len(block), size - sent)])
connection.close()
"""


# --- processes --------------------------------------------------------------------------------

class Service:
    """One process the benchmark started (in the namespace or on the host), by its PID only."""

    def __init__(self, name, command, env, log_file, side):
        self.name = name
        self.side = side  # "storage" (inside the namespace) or "compute" (the host)
        os.makedirs(os.path.dirname(log_file), exist_ok=True)
        self.log_file = log_file
        with open(log_file, "ab") as log:
            self.process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            start_new_session=True)
        self.pid = self.process.pid

    def alive(self):
        return self.process.poll() is None

    def cpu_seconds(self):
        """User and system CPU of the process (all its threads) so far."""
        return cpu_seconds(self.pid)

    def peak_rss_mb(self):
        try:
            with open(f"/proc/{self.pid}/status") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) * 1024 / 1e6
        except OSError:
            pass
        return None

    def stop(self, timeout=30):
        if not self.alive():
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=30)


def cpu_seconds(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # after the command name: state is field 3, utime 14 and stime 15 (1-based, in clock ticks)
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def wait_until(what, predicate, timeout, service=None, interval=0.5):
    deadline = time.monotonic() + timeout
    while True:
        try:
            if predicate():
                return
        except Exception:  # noqa: BLE001 - not up yet
            pass
        if service is not None and not service.alive():
            raise RuntimeError(f"{service.name} exited while starting; see {service.log_file}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not come up within {timeout} s" + (f"; see {service.log_file}" if service else ""))
        time.sleep(interval)


def https_get(url, tls_dir=None, client="bench", timeout=5):
    """GET with the cluster CA and a client certificate of it (the services want one), or plain."""
    context = None
    if url.startswith("https") and tls_dir:
        context = ssl.create_default_context(cafile=os.path.join(tls_dir, "ca.pem"))
        context.load_cert_chain(os.path.join(tls_dir, f"{client}.pem"), os.path.join(tls_dir, f"{client}.key"))
    with urllib.request.urlopen(url, timeout=timeout, context=context) as response:
        return response.read().decode()


def tcp_open(host, port):
    with socket.create_connection((host, port), timeout=2):
        return True


# --- the page cache ---------------------------------------------------------------------------

def evict_page_cache(directories):
    """Drops the cached pages of every file under the directories (posix_fadvise DONTNEED), so
    the next read of them comes from the disk: only the benchmark's own files, never the whole
    machine's cache as drop_caches would. Returns the number of files."""
    count = 0
    for directory in directories:
        for root, _, files in os.walk(directory):
            for name in files:
                try:
                    fd = os.open(os.path.join(root, name), os.O_RDONLY)
                except OSError:
                    continue
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                    count += 1
                finally:
                    os.close(fd)
    return count


# --- sampling CPU over a span of time ---------------------------------------------------------

class CpuMeter:
    """CPU seconds of a set of services over a span: snapshot() before, delta() after."""

    def __init__(self, services):
        self.services = services

    def snapshot(self):
        return {service.name: service.cpu_seconds() for service in self.services}

    @staticmethod
    def delta(before, after):
        return {name: round(after[name] - before[name], 3) for name in before}


class LoadSampler(threading.Thread):
    """Samples the 1-minute load average and the machine's busy CPU fraction every few seconds,
    so the results can say how quiet the machine was."""

    def __init__(self, interval=5.0):
        super().__init__(daemon=True)
        self.interval = interval
        self.samples = []
        self.stopped = threading.Event()

    @staticmethod
    def _cpu_times():
        with open("/proc/stat") as stat:
            fields = [int(value) for value in stat.readline().split()[1:]]
        idle = fields[3] + fields[4]
        return sum(fields), idle

    def run(self):
        total, idle = self._cpu_times()
        while not self.stopped.wait(self.interval):
            new_total, new_idle = self._cpu_times()
            busy = 1 - (new_idle - idle) / max(1, new_total - total)
            total, idle = new_total, new_idle
            self.samples.append((time.time(), os.getloadavg()[0], round(busy, 3)))

    def stop(self):
        self.stopped.set()
