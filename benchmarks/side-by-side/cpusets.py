"""Which CPUs each side of the testbed runs on.

The shared testbed leaves every process on every CPU. The split testbed models the deployment
nsc is for, storage nodes that are machines of their own: the storage side (nsc's metadata
service and storage nodes, s3proxy for Hive and Iceberg) and Trino get disjoint CPU sets.

Two ways to place a process, both applied when it starts, before its first thread exists, so
that every thread and child it makes inherits the set:
- a cgroup v2 cpuset: a child cgroup per side under one cgroup of the run's own; the process
  joins it (its pid written to cgroup.procs) and then execs the service. Preferred where the
  machine's cgroup v2 hierarchy offers the cpuset controller: nothing inside the process can
  widen it.
- otherwise `taskset -a -c LIST`: the affinity mask, inherited through exec and by every thread.

Either way the sets as applied are read back from /proc/<pid>/status (Cpus_allowed_list) of the
live processes, and those, not the requested lists, go into the results.

Standard library only.
"""
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import machine  # noqa: E402

SIDES = ("storage", "trino")
MODES = ("shared", "split")


# --- CPU lists (the kernel's "0-2,5" notation) ----------------------------------------------------

def parse_cpu_list(text):
    """'1', '0-1', '0,2-3' -> a sorted tuple of CPU numbers; ValueError on anything else."""
    cpus = set()
    for part in text.strip().split(","):
        part = part.strip()
        first, dash, last = part.partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            raise ValueError(f"a CPU list is numbers and ranges like 1, 0-1 or 0,2-3, not '{text}'")
        low, high = int(first), int(last) if dash else int(first)
        if high < low:
            raise ValueError(f"the range {part} in '{text}' runs backwards")
        cpus.update(range(low, high + 1))
    return tuple(sorted(cpus))


def format_cpu_list(cpus):
    """The kernel's notation (as /proc/<pid>/status prints Cpus_allowed_list): (0, 1, 2, 5) -> '0-2,5'."""
    ranges, cpus = [], sorted(set(cpus))
    for cpu in cpus:
        if ranges and cpu == ranges[-1][1] + 1:
            ranges[-1][1] = cpu
        else:
            ranges.append([cpu, cpu])
    return ",".join(str(low) if low == high else f"{low}-{high}" for low, high in ranges)


def available_cpus():
    """The CPUs this process may run on (a container or an outer taskset may allow fewer than
    the machine has): the only ones a side can be given."""
    return tuple(sorted(os.sched_getaffinity(0)))


def default_split(available):
    """Trino on the lower half, the storage side on the upper half (on 2 CPUs: Trino on CPU 0,
    storage on CPU 1), so either side can be named alone and the other takes the rest."""
    if len(available) < 2:
        raise ValueError(f"the split testbed needs at least 2 CPUs, and this process may use only {format_cpu_list(available)}")
    half = len(available) // 2
    return {"storage": tuple(available[half:]), "trino": tuple(available[:half])}


def choose_cpu_sets(storage_text, trino_text, available):
    """The CPU set of each side from --storage-cpus and --trino-cpus (either may be None: the
    default split, or the rest of the available CPUs when only the other side is named).
    ValueError, saying what is wrong, unless both sets are non-empty, disjoint and available."""
    requested = {"storage": parse_cpu_list(storage_text) if storage_text else None,
                 "trino": parse_cpu_list(trino_text) if trino_text else None}
    for side, cpus in requested.items():
        missing = [cpu for cpu in cpus or () if cpu not in available]
        if missing:
            raise ValueError(f"--{side}-cpus: CPU {format_cpu_list(missing)} is not available here "
                             f"(this process may use CPUs {format_cpu_list(available)})")
    if requested["storage"] is None and requested["trino"] is None:
        return default_split(available)
    for side, other in (("storage", "trino"), ("trino", "storage")):
        if requested[side] is None:
            requested[side] = tuple(cpu for cpu in available if cpu not in requested[other])
            if not requested[side]:
                raise ValueError(f"--{other}-cpus {format_cpu_list(requested[other])} leaves no CPU for the {side} side; "
                                 f"name --{side}-cpus too")
    overlap = set(requested["storage"]) & set(requested["trino"])
    if overlap:
        raise ValueError(f"--storage-cpus and --trino-cpus must be disjoint; both have CPU {format_cpu_list(overlap)}")
    return requested


# --- finding a cgroup v2 cpuset ------------------------------------------------------------------

def cgroup2_mounts(mountinfo_text):
    """Mount points of cgroup2 file systems in /proc/self/mountinfo's text (the file system type
    is the first field after the ' - ' separator)."""
    mounts = []
    for line in mountinfo_text.splitlines():
        before, separator, after = line.partition(" - ")
        fields = before.split()
        if separator and after.split()[:1] == ["cgroup2"] and len(fields) >= 5:
            mounts.append(fields[4].replace("\\040", " "))
    return mounts


def cgroup2_cpuset_root(mountinfo_text=None):
    """The cgroup2 mount whose root offers the cpuset controller, or None (no cgroup v2, or a
    hybrid machine where cpuset is bound to the v1 hierarchy: its cgroup2 lists no cpuset)."""
    if mountinfo_text is None:
        mountinfo_text = machine.read_text("/proc/self/mountinfo")
    for mount in cgroup2_mounts(mountinfo_text):
        if "cpuset" in machine.read_text(os.path.join(mount, "cgroup.controllers")).split():
            return mount
    return None


# --- placing processes -----------------------------------------------------------------------

class Shared:
    """Today's testbed: no placement; every process may run on every CPU."""
    mode = "shared"
    method = "none (every process on every CPU)"
    cpu_sets = {}

    def prefix(self, side):
        return []

    def create(self):
        pass

    def remove(self):
        pass


class Taskset:
    """`taskset -a -c LIST` in front of each command: the affinity mask is set before the
    service's first thread and inherited by all of them."""
    mode = "split"
    method = "taskset (affinity mask at process start)"

    def __init__(self, cpu_sets):
        self.cpu_sets = cpu_sets

    def prefix(self, side):
        return ["taskset", "-a", "-c", format_cpu_list(self.cpu_sets[side])]

    def create(self):
        pass

    def remove(self):
        pass


class CgroupCpusets:
    """A cgroup of the run's own under the cgroup2 root, with a child cgroup per side holding its
    cpuset. Each command is prefixed by a shell that moves itself into its side's cgroup and then
    execs the command, so the service's every thread and child starts there."""
    mode = "split"

    def __init__(self, cpu_sets, root, name="nsc-bench"):
        self.cpu_sets = cpu_sets
        self.root = root
        self.parent = os.path.join(root, name)
        self.created = False
        self.method = f"cgroup v2 cpusets ({self.parent}/{{storage,trino}})"

    def side_directory(self, side):
        return os.path.join(self.parent, side)

    def prefix(self, side):
        # sh -c SCRIPT ARG0 ARGS...: $0 is the cgroup.procs file, "$@" the command that follows
        return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', os.path.join(self.side_directory(side), "cgroup.procs")]

    def writes(self):
        """(file, text) in the order they must be written: the cpuset controller enabled for the
        children of the root and of the run's cgroup, then each side's CPUs."""
        result = [(os.path.join(self.root, "cgroup.subtree_control"), "+cpuset"),
                  (os.path.join(self.parent, "cgroup.subtree_control"), "+cpuset")]
        for side in SIDES:
            result.append((os.path.join(self.side_directory(side), "cpuset.cpus"), format_cpu_list(self.cpu_sets[side])))
        return result

    def create(self):
        self._remove_stale()
        self.created = True
        os.mkdir(self.parent)
        for path, text in self.writes():
            directory = os.path.dirname(path)
            if not os.path.isdir(directory):
                os.mkdir(directory)
            _write(path, text)

    def _remove_stale(self):
        """A cgroup left by a run that was killed is removed if empty; one with processes in it
        belongs to a run still going."""
        if not os.path.isdir(self.parent):
            return
        pids = self.pids()
        if pids:
            raise RuntimeError(f"cgroup {self.parent} exists and processes run in it ({' '.join(map(str, pids))}): another "
                               f"benchmark, or one that was killed; stop them, then rmdir {self.parent}/* {self.parent}")
        self.created = True
        self.remove()

    def pids(self):
        pids = []
        for side in SIDES:
            pids += [int(pid) for pid in machine.read_text(os.path.join(self.side_directory(side), "cgroup.procs")).split()]
        return pids

    def remove(self, timeout=10):
        """Removes the side cgroups and the run's own: any process the services left behind in
        them is killed first (a cgroup with a process in it cannot be removed)."""
        if not self.created:
            return
        for pid in self.pids():
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        deadline = time.monotonic() + timeout
        for directory in [self.side_directory(side) for side in SIDES] + [self.parent]:
            while os.path.isdir(directory):
                try:
                    os.rmdir(directory)
                except OSError as error:
                    if time.monotonic() > deadline:
                        print(f"bench: could not remove cgroup {directory}: {error}", flush=True)
                        break
                    time.sleep(0.1)
        self.created = False


def _write(path, text):
    with open(path, "w") as file:
        file.write(text)


def placement(mode, cpu_sets, cgroup_root="detect"):
    """The placement for a testbed mode: Shared, or a split by cgroup v2 cpusets where the
    machine offers them and by taskset otherwise."""
    if mode == "shared":
        return Shared()
    root = cgroup2_cpuset_root() if cgroup_root == "detect" else cgroup_root
    if root:
        return CgroupCpusets(cpu_sets, root)
    if not shutil.which("taskset"):
        raise RuntimeError("the split testbed needs cgroup v2 cpusets or taskset (Debian: apt-get install util-linux)")
    return Taskset(cpu_sets)


def create_placement(mode, cpu_sets, log, cgroup_root="detect"):
    """The placement, created: a cgroup the machine offers but will not let us make (a delegated
    hierarchy whose parent holds processes refuses to enable cpuset for its children) falls
    back to taskset, which places the processes as well."""
    chosen = placement(mode, cpu_sets, cgroup_root)
    try:
        chosen.create()
    except OSError as error:
        if not isinstance(chosen, CgroupCpusets):
            raise
        chosen.remove()
        log(f"cgroup cpusets under {chosen.root} could not be made ({error}); taskset instead")
        chosen = placement(mode, cpu_sets, cgroup_root=None)
        chosen.create()
    return chosen


# --- reading back what was applied -------------------------------------------------------------

def cpus_allowed(pid, proc="/proc"):
    """Cpus_allowed_list of every thread of a live process: {list: number of threads}, so that a
    thread which escaped its side's set shows."""
    result = {}
    task_dir = os.path.join(proc, str(pid), "task")
    try:
        tasks = os.listdir(task_dir)
    except OSError:
        return result
    for task in tasks:
        for line in machine.read_text(os.path.join(task_dir, task, "status")).splitlines():
            if line.startswith("Cpus_allowed_list:"):
                value = line.split(":", 1)[1].strip()
                result[value] = result.get(value, 0) + 1
    return result


def applied_cpu_sets(services, proc="/proc"):
    """{service name: its threads' Cpus_allowed_list}, one list when every thread agrees,
    'a (N threads); b (M threads)' when they do not, '' for a process that is gone."""
    result = {}
    for name, pid in services.items():
        lists = cpus_allowed(pid, proc)
        if len(lists) == 1:
            result[name] = next(iter(lists))
        else:
            result[name] = "; ".join(f"{value} ({count} threads)" for value, count in sorted(lists.items()))
    return result


def check_applied(applied, sides, cpu_sets):
    """The problems with the sets as read back, for a split testbed: a process not on exactly its
    side's set. sides: {service name: 'storage' or 'trino'}."""
    problems = []
    for name, value in applied.items():
        wanted = format_cpu_list(cpu_sets[sides[name]])
        if value != wanted:
            problems.append(f"{name} runs on CPUs '{value}', not its side's {wanted}")
    return problems
