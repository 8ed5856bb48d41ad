package io.nsc.protocol.host;

import com.google.common.collect.ImmutableSortedSet;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.nsc.protocol.host.HostCpus.parseCpuList;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestHostCpus
{
    @Test
    void testParsesTheKernelsListFormat()
    {
        assertThat(parseCpuList("0-3,8,10-11\n")).containsExactly(0, 1, 2, 3, 8, 10, 11);
        assertThat(parseCpuList("1")).containsExactly(1);
        assertThat(parseCpuList("")).isEmpty();
        assertThat(new HostCpus("h", parseCpuList("0-3,8,10-11")).cpuList()).isEqualTo("0-3,8,10-11");
        assertThat(new HostCpus("h", parseCpuList("5")).cpuList()).isEqualTo("5");
        for (String bad : new String[] {"a", "3-1", "1-2-3", "-1", "0,,1", "99999999"}) {
            assertThatThrownBy(() -> parseCpuList(bad)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a CPU list");
        }
    }

    @Test
    void testSharingNeedsTheSameMachineAndACommonCpu()
    {
        HostCpus trino = new HostCpus("boot-a", ImmutableSortedSet.of(0));
        assertThat(trino.sharesCpusWith(new HostCpus("boot-a", ImmutableSortedSet.of(1)))).isFalse();
        assertThat(trino.sharesCpusWith(new HostCpus("boot-a", ImmutableSortedSet.of(0, 1)))).isTrue();
        assertThat(trino.sharesCpusWith(new HostCpus("boot-b", ImmutableSortedSet.of(0)))).isFalse();
        // what is not known is taken as shared: pushdown must then pay for itself in bytes
        assertThat(trino.sharesCpusWith(HostCpus.UNKNOWN)).isTrue();
        assertThat(trino.sharesCpusWith(new HostCpus("boot-a", ImmutableSortedSet.of()))).isTrue();
    }

    @Test
    void testReadsThisProcess(@org.junit.jupiter.api.io.TempDir Path directory)
            throws IOException
    {
        Path status = directory.resolve("status");
        Files.writeString(status, "Name:\tjava\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n");
        assertThat(HostCpus.allowedCpus(status)).containsExactly(0, 1);
        Files.writeString(status, "Name:\tjava\n");
        assertThat(HostCpus.allowedCpus(status)).isEmpty();
        HostCpus current = HostCpus.current();
        if (Files.exists(Path.of("/proc/self/status"))) {
            assertThat(current.cpus()).hasSizeGreaterThanOrEqualTo(1);
            assertThat(current.host()).isNotEmpty();
            assertThat(current.sharesCpusWith(HostCpus.current())).isTrue();
        }
    }
}
