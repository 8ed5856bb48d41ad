package io.nsc.tools.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

final class TestPeakMemory
{
    @Test
    void readsVmHwmInKibibytes(@TempDir Path directory)
            throws IOException
    {
        Path status = directory.resolve("status");
        Files.writeString(status, """
                Name:\tjava
                VmPeak:\t 9000000 kB
                VmHWM:\t  812345 kB
                VmRSS:\t  700000 kB
                """);
        assertThat(PeakMemory.peakResidentBytes(status)).isEqualTo(OptionalLong.of(812_345L * 1024));
    }

    @Test
    void missingOrMalformedGivesNothing(@TempDir Path directory)
            throws IOException
    {
        assertThat(PeakMemory.peakResidentBytes(directory.resolve("absent"))).isEmpty();
        Path status = directory.resolve("status");
        Files.writeString(status, "Name:\tjava\nVmRSS:\t700000 kB\n");
        assertThat(PeakMemory.peakResidentBytes(status)).isEmpty();
        Files.writeString(status, "VmHWM:\tlots kB\n");
        assertThat(PeakMemory.peakResidentBytes(status)).isEmpty();
        Files.writeString(status, "VmHWM:\t812345 MB\n");
        assertThat(PeakMemory.peakResidentBytes(status)).isEmpty();
    }

    @Test
    void thisProcessOnLinux()
    {
        Path status = Path.of("/proc/self/status");
        assumeTrue(Files.isReadable(status), "Linux only");
        // a JVM's resident set is tens of MB at the very least
        assertThat(PeakMemory.peakResidentBytes(status).orElseThrow()).isGreaterThan(10_000_000L);
        assertThat(PeakMemory.describe()).matches("peak memory: [0-9.]+ MB resident \\(VmHWM\\), heap limit [0-9.]+ MB");
    }
}
