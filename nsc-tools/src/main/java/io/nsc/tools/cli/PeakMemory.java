package io.nsc.tools.cli;

import com.google.common.annotations.VisibleForTesting;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * The peak resident memory of this process, which the tools print when a long command ends so
 * that the figure is at hand without an outside profiler. The kernel keeps it as {@code VmHWM}
 * in {@code /proc/self/status}: Linux only, elsewhere the figure is left out.
 */
public final class PeakMemory
{
    private static final Path STATUS = Path.of("/proc/self/status");

    private PeakMemory() {}

    /** For example "peak memory: 812.4 MB resident (VmHWM), heap limit 4096.0 MB". */
    public static String describe()
    {
        String heapLimit = "heap limit %.1f MB".formatted(Runtime.getRuntime().maxMemory() / 1e6);
        OptionalLong resident = peakResidentBytes(STATUS);
        if (resident.isEmpty()) {
            return "peak memory: resident size unknown (only Linux reports it), " + heapLimit;
        }
        return "peak memory: %.1f MB resident (VmHWM), %s".formatted(resident.getAsLong() / 1e6, heapLimit);
    }

    /** VmHWM from a /proc status file, in bytes; empty when the file or the line is missing. */
    @VisibleForTesting
    static OptionalLong peakResidentBytes(Path status)
    {
        List<String> lines;
        try {
            lines = Files.readAllLines(status, UTF_8);
        }
        catch (IOException e) {
            return OptionalLong.empty();
        }
        // the line reads "VmHWM:    812345 kB"; the kernel always counts in kB (KiB)
        Optional<String> peak = lines.stream().filter(line -> line.startsWith("VmHWM:")).findFirst();
        if (peak.isEmpty()) {
            return OptionalLong.empty();
        }
        String[] words = peak.get().substring("VmHWM:".length()).trim().split("\\s+");
        if (words.length != 2 || !words[1].equals("kB")) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(words[0]) * 1024);
        }
        catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }
}
