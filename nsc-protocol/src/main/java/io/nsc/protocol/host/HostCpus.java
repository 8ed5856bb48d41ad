package io.nsc.protocol.host;

import com.google.common.collect.ImmutableSortedSet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SortedSet;

import static com.google.common.base.Preconditions.checkArgument;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * Which machine a process runs on and which of its CPUs it may use. Two processes compete for
 * CPU time exactly when they run on the same machine (same kernel boot) and their CPU sets meet:
 * then a CPU second a storage node spends on a pushed-down scan is a CPU second Trino loses.
 * Storage nodes report theirs with their statistics; the connector compares them with its own.
 *
 * @param host the machine's boot id (and machine id where it has one); empty where unknown
 * @param cpus the CPUs the process may run on; empty where unknown
 */
public record HostCpus(String host, SortedSet<Integer> cpus)
{
    private static final int MAX_CPU = 1 << 16;

    public static final HostCpus UNKNOWN = new HostCpus("", ImmutableSortedSet.of());

    public HostCpus
    {
        requireNonNull(host, "host is null");
        cpus = ImmutableSortedSet.copyOf(requireNonNull(cpus, "cpus is null"));
    }

    /** This process's: Linux's boot id and machine id, and the Cpus_allowed_list of /proc/self/status. */
    public static HostCpus current()
    {
        String boot = readFirstLine(Path.of("/proc/sys/kernel/random/boot_id"));
        String machine = readFirstLine(Path.of("/etc/machine-id"));
        String host = boot.isEmpty() ? "" : boot + (machine.isEmpty() ? "" : "/" + machine);
        return new HostCpus(host, allowedCpus(Path.of("/proc/self/status")));
    }

    /** The other process's CPU time is this one's: the same machine and at least one CPU in common. Unknown counts as shared. */
    public boolean sharesCpusWith(HostCpus other)
    {
        if (host.isEmpty() || other.host.isEmpty()) {
            return true;
        }
        if (!host.equals(other.host)) {
            return false;
        }
        if (cpus.isEmpty() || other.cpus.isEmpty()) {
            return true;
        }
        return other.cpus.stream().anyMatch(cpus::contains);
    }

    /** The kernel's list format: {@code 0-3,8,10-11}. */
    public String cpuList()
    {
        StringBuilder list = new StringBuilder();
        Integer start = null;
        Integer previous = null;
        for (int cpu : cpus) {
            if (previous != null && cpu == previous + 1) {
                previous = cpu;
                continue;
            }
            appendRange(list, start, previous);
            start = cpu;
            previous = cpu;
        }
        appendRange(list, start, previous);
        return list.toString();
    }

    public static SortedSet<Integer> parseCpuList(String list)
    {
        ImmutableSortedSet.Builder<Integer> cpus = ImmutableSortedSet.naturalOrder();
        if (list.isBlank()) {
            return cpus.build();
        }
        for (String part : list.strip().split(",")) {
            String[] bounds = part.strip().split("-", -1);
            checkArgument(bounds.length <= 2, "not a CPU list: %s", list);
            int low = parseCpu(bounds[0], list);
            int high = bounds.length == 2 ? parseCpu(bounds[1], list) : low;
            checkArgument(low <= high, "not a CPU list: %s", list);
            for (int cpu = low; cpu <= high; cpu++) {
                cpus.add(cpu);
            }
        }
        return cpus.build();
    }

    private static int parseCpu(String text, String list)
    {
        try {
            int cpu = Integer.parseInt(text.strip());
            checkArgument(cpu >= 0 && cpu < MAX_CPU, "not a CPU list: %s", list);
            return cpu;
        }
        catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a CPU list: " + list, e);
        }
    }

    private static void appendRange(StringBuilder list, Integer start, Integer end)
    {
        if (start == null) {
            return;
        }
        if (!list.isEmpty()) {
            list.append(',');
        }
        list.append(start);
        if (!start.equals(end)) {
            list.append('-').append(end);
        }
    }

    static SortedSet<Integer> allowedCpus(Path status)
    {
        try {
            for (String line : Files.readAllLines(status, UTF_8)) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return parseCpuList(line.substring(line.indexOf(':') + 1));
                }
            }
        }
        catch (IOException | IllegalArgumentException _) {
            // not Linux, or a format this code does not know: unknown, which counts as shared
        }
        return ImmutableSortedSet.of();
    }

    private static String readFirstLine(Path path)
    {
        try {
            return Files.readAllLines(path, UTF_8).stream().findFirst().orElse("").strip();
        }
        catch (IOException _) {
            return "";
        }
    }
}
