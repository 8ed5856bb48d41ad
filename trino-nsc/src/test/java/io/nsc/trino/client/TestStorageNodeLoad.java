package io.nsc.trino.client;

import io.airlift.testing.TestingTicker;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.trino.ExportedMBean;
import org.junit.jupiter.api.Test;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/** Each node's load is asked for at most once a second, and the lookups show in JMX. */
final class TestStorageNodeLoad
{
    // nothing listens on port 1: the call fails at once, and the node's load is unknown
    private static final String UNREACHABLE = "127.0.0.1:1";

    @Test
    void testLoadIsAskedOncePerSecondAndHitsAndMissesAreExported()
    {
        TestingTicker ticker = new TestingTicker();
        StorageClients clients = new StorageClients(TransportSecurity.insecure());
        try {
            StorageNodeLoad loads = new StorageNodeLoad(clients, ticker);
            ExportedMBean exported = new ExportedMBean(loads);

            assertThat(loads.get(UNREACHABLE)).isEqualTo(StorageNodeLoad.Load.UNKNOWN);
            assertThat(loads.get(UNREACHABLE)).isEqualTo(StorageNodeLoad.Load.UNKNOWN);
            assertThat(exported.longAttribute("CacheStats.MissCount")).isEqualTo(1);
            assertThat(exported.longAttribute("CacheStats.HitCount")).isEqualTo(1);
            assertThat(exported.longAttribute("CacheStats.Size")).isEqualTo(1);

            // a second later the node is asked again
            ticker.increment(1, SECONDS);
            loads.get(UNREACHABLE);
            assertThat(exported.longAttribute("CacheStats.MissCount")).isEqualTo(2);
            assertThat(exported.longAttribute("CacheStats.HitCount")).isEqualTo(1);
        }
        finally {
            clients.close();
        }
    }
}
