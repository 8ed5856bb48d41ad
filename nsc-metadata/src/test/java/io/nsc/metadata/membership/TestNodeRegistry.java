package io.nsc.metadata.membership;

import io.airlift.units.Duration;
import io.nsc.metadata.TestingClock;
import io.nsc.metadata.TestingTicker;
import io.nsc.metadata.catalog.CatalogDatabase;
import io.nsc.metadata.catalog.H2CatalogDatabase;
import io.nsc.metadata.catalog.NodeEntry;
import io.nsc.metadata.catalog.TestingCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.grpc.Status.Code.INVALID_ARGUMENT;
import static io.nsc.metadata.StatusAssertions.assertStatusContains;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

final class TestNodeRegistry
{
    private static final Duration NODE_TIMEOUT = new Duration(10, SECONDS);

    @TempDir
    Path dataDir;

    private static final Duration SYNC_INTERVAL = new Duration(1, SECONDS);

    private CatalogDatabase database;
    private TestingCatalog catalog;
    // one machine: the services' monotonic and wall clocks move together
    private final TestingTicker ticker = new TestingTicker();
    private final TestingClock clock = new TestingClock(1_700_000_000_000L);

    @BeforeEach
    void setUp()
    {
        database = H2CatalogDatabase.open(dataDir);
        catalog = TestingCatalog.create(database, clock);
    }

    @AfterEach
    void tearDown()
    {
        database.close();
    }

    private NodeRegistry newRegistry()
    {
        return new NodeRegistry(catalog.nodes(), ticker, clock, NODE_TIMEOUT, SYNC_INTERVAL);
    }

    private void advance(long amount, TimeUnit unit)
    {
        ticker.advance(amount, unit);
        clock.advance(amount, unit);
    }

    @Test
    void testLivenessFollowsHeartbeats()
    {
        NodeRegistry registry = newRegistry();
        registry.register("node-a", "127.0.0.1:7001", 1000, 900, List.of());
        registry.register("node-b", "127.0.0.1:7002", 1000, 800, List.of());
        assertThat(registry.liveNodes()).extracting(StorageNodeState::nodeId).containsExactly("node-a", "node-b");

        advance(6, SECONDS);
        assertThat(registry.heartbeat("node-a", 700, 5, 0.25)).isTrue();
        advance(4, SECONDS);
        // node-b's last sign of life is exactly the timeout ago: still alive
        assertThat(registry.liveNodeCount()).isEqualTo(2);
        advance(1, MILLISECONDS);
        assertThat(registry.liveNodes()).extracting(StorageNodeState::nodeId).containsExactly("node-a");
        assertThat(registry.nodes()).extracting(StorageNodeState::alive).containsExactly(true, false);

        StorageNodeState nodeA = registry.node("node-a").orElseThrow();
        assertThat(nodeA.freeBytes()).isEqualTo(700);
        assertThat(nodeA.fileCount()).isEqualTo(5);
        assertThat(nodeA.load()).isEqualTo(0.25);

        assertThat(registry.heartbeat("node-b", 800, 0, 2.5)).isTrue();
        assertThat(registry.liveNodeCount()).isEqualTo(2);
        assertThat(registry.node("node-b").orElseThrow().load()).isEqualTo(1.0);
    }

    @Test
    void testUnknownNodeMustRegister()
    {
        NodeRegistry registry = newRegistry();
        assertThat(registry.heartbeat("node-x", 1, 0, 0)).isFalse();
        assertThat(registry.nodes()).isEmpty();
    }

    @Test
    void testRestartedServiceKnowsNodesAndTheirRecordedBeats()
    {
        NodeRegistry before = newRegistry();
        before.register("node-a", "127.0.0.1:7001", 1000, 900, List.of());
        before.register("node-b", "127.0.0.1:7002", 1000, 900, List.of());
        advance(8, SECONDS);
        before.heartbeat("node-a", 600, 2, 0.5);
        before.sync();

        // restarted 5 s later: node-a beat 5 s ago, node-b 13 s ago
        advance(5, SECONDS);
        NodeRegistry after = newRegistry();
        StorageNodeState persisted = after.node("node-a").orElseThrow();
        assertThat(persisted.alive()).isTrue();
        assertThat(persisted.address()).isEqualTo("127.0.0.1:7001");
        assertThat(persisted.freeBytes()).isEqualTo(600);
        assertThat(after.liveNodes()).extracting(StorageNodeState::nodeId).containsExactly("node-a");
        assertThat(after.unseenFor("node-b")).contains(java.time.Duration.ofSeconds(13));

        advance(6, SECONDS);
        assertThat(after.liveNodes()).isEmpty();
        assertThat(after.heartbeat("node-a", 500, 2, 0.1)).isTrue();
        assertThat(after.liveNodes()).extracting(StorageNodeState::nodeId).containsExactly("node-a");
    }

    @Test
    void testBeatsAreRecordedOncePerSyncNotPerBeat()
    {
        NodeRegistry registry = newRegistry();
        registry.register("node-a", "127.0.0.1:7001", 1000, 900, List.of());
        long registeredMillis = clock.millis();
        for (int beat = 1; beat <= 5; beat++) {
            advance(1, SECONDS);
            registry.heartbeat("node-a", 900 - beat, beat, 0);
        }
        // nothing written since the registration
        NodeEntry stored = catalog.nodes().listNodes().getFirst();
        assertThat(stored.freeBytes()).isEqualTo(900);
        assertThat(stored.lastHeartbeatMillis()).isEqualTo(registeredMillis);

        registry.sync();
        stored = catalog.nodes().listNodes().getFirst();
        assertThat(stored.freeBytes()).isEqualTo(895);
        assertThat(stored.fileCount()).isEqualTo(5);
        assertThat(stored.lastHeartbeatMillis()).isEqualTo(clock.millis());
    }

    @Test
    void testServicesOverOneCatalogShareLiveness()
    {
        NodeRegistry first = newRegistry();
        NodeRegistry second = newRegistry();
        first.register("node-a", "127.0.0.1:7001", 1000, 900, List.of());
        // the second service learns of a node registered with the first at its next sync
        assertThat(second.heartbeat("node-a", 900, 0, 0)).isFalse();
        second.sync();
        assertThat(second.liveNodes()).extracting(StorageNodeState::nodeId).containsExactly("node-a");

        // the node beats only to the first service; the second stays informed through the catalog
        advance(8, SECONDS);
        first.heartbeat("node-a", 800, 1, 0);
        first.sync();
        advance(4, SECONDS);
        second.sync();
        assertThat(second.node("node-a").orElseThrow().alive()).isTrue();
        assertThat(second.node("node-a").orElseThrow().freeBytes()).isEqualTo(800);

        // the first service dies; the node moves to the second, which the first never learns of
        advance(4, SECONDS);
        second.heartbeat("node-a", 700, 1, 0);
        second.sync();
        advance(7, SECONDS);
        first.sync();
        assertThat(first.node("node-a").orElseThrow().alive()).isTrue();
        assertThat(first.node("node-a").orElseThrow().freeBytes()).isEqualTo(700);

        // silent for longer than the node timeout: dead on both
        advance(4, SECONDS);
        first.sync();
        second.sync();
        assertThat(first.liveNodes()).isEmpty();
        assertThat(second.liveNodes()).isEmpty();
    }

    @Test
    void testDrainingMarksReachEveryService()
    {
        NodeRegistry first = newRegistry();
        first.register("node-a", "127.0.0.1:7001", 1000, 900, List.of());
        NodeRegistry second = newRegistry();
        catalog.replicas().setDraining("node-a", true);
        first.setDraining("node-a", true);
        assertThat(second.node("node-a").orElseThrow().draining()).isFalse();
        second.sync();
        assertThat(second.node("node-a").orElseThrow().draining()).isTrue();
        assertThat(second.node("node-a").orElseThrow().acceptsReplicas()).isFalse();

        catalog.replicas().setDraining("node-a", false);
        second.sync();
        assertThat(second.node("node-a").orElseThrow().draining()).isFalse();
    }

    @Test
    void testReRegistrationUpdatesAddress()
    {
        NodeRegistry registry = newRegistry();
        registry.register("node-a", "127.0.0.1:7001", 1000, 900, List.of());
        registry.register("node-a", "10.0.0.5:7001", 2000, 1900, List.of());

        assertThat(registry.nodes()).containsExactly(registry.node("node-a").orElseThrow());
        assertThat(registry.node("node-a").orElseThrow().address()).isEqualTo("10.0.0.5:7001");
        assertThat(newRegistry().node("node-a").orElseThrow().capacityBytes()).isEqualTo(2000);
    }

    @Test
    void testInvalidRegistrations()
    {
        NodeRegistry registry = newRegistry();
        assertStatusContains(() -> registry.register("", "127.0.0.1:7001", 1, 1, List.of()), INVALID_ARGUMENT, "Invalid node id ''");
        assertStatusContains(() -> registry.register("a,b", "127.0.0.1:7001", 1, 1, List.of()), INVALID_ARGUMENT, "Invalid node id 'a,b'");
        assertStatusContains(() -> registry.register("node-a", "127.0.0.1", 1, 1, List.of()), INVALID_ARGUMENT, "Invalid node address '127.0.0.1': expected host:port");
        assertStatusContains(() -> registry.register("node-a", "", 1, 1, List.of()), INVALID_ARGUMENT, "Invalid node address");
        assertStatusContains(() -> registry.register("node-a", "127.0.0.1:7001", -1, 1, List.of()), INVALID_ARGUMENT, "negative");
        assertThat(registry.nodes()).isEmpty();
    }
}
