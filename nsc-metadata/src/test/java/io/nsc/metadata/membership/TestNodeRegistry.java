package io.nsc.metadata.membership;

import io.airlift.units.Duration;
import io.nsc.metadata.TestingTicker;
import io.nsc.metadata.catalog.CatalogDatabase;
import io.nsc.metadata.catalog.H2CatalogDatabase;
import io.nsc.metadata.catalog.TestingCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

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

    private CatalogDatabase database;
    private TestingCatalog catalog;
    private final TestingTicker ticker = new TestingTicker();

    @BeforeEach
    void setUp()
    {
        database = H2CatalogDatabase.open(dataDir);
        catalog = TestingCatalog.create(database, Clock.systemUTC());
    }

    @AfterEach
    void tearDown()
    {
        database.close();
    }

    @Test
    void testLivenessFollowsHeartbeats()
    {
        NodeRegistry registry = new NodeRegistry(catalog.nodes(), ticker, NODE_TIMEOUT);
        registry.register("node-a", "127.0.0.1:7001", 1000, 900, List.of());
        registry.register("node-b", "127.0.0.1:7002", 1000, 800, List.of());
        assertThat(registry.liveNodes()).extracting(StorageNodeState::nodeId).containsExactly("node-a", "node-b");

        ticker.advance(6, SECONDS);
        assertThat(registry.heartbeat("node-a", 700, 5, 0.25)).isTrue();
        ticker.advance(4, SECONDS);
        // node-b's last sign of life is exactly the timeout ago: still alive
        assertThat(registry.liveNodeCount()).isEqualTo(2);
        ticker.advance(1, MILLISECONDS);
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
        NodeRegistry registry = new NodeRegistry(catalog.nodes(), ticker, NODE_TIMEOUT);
        assertThat(registry.heartbeat("node-x", 1, 0, 0)).isFalse();
        assertThat(registry.nodes()).isEmpty();
    }

    @Test
    void testRestartedServiceKnowsNodesButWaitsForHeartbeats()
    {
        NodeRegistry before = new NodeRegistry(catalog.nodes(), ticker, NODE_TIMEOUT);
        before.register("node-a", "127.0.0.1:7001", 1000, 900, List.of());
        before.heartbeat("node-a", 600, 2, 0.5);

        NodeRegistry after = new NodeRegistry(catalog.nodes(), ticker, NODE_TIMEOUT);
        StorageNodeState persisted = after.node("node-a").orElseThrow();
        assertThat(persisted.alive()).isFalse();
        assertThat(persisted.address()).isEqualTo("127.0.0.1:7001");
        assertThat(persisted.freeBytes()).isEqualTo(600);
        assertThat(after.liveNodes()).isEmpty();

        assertThat(after.heartbeat("node-a", 500, 2, 0.1)).isTrue();
        assertThat(after.liveNodes()).extracting(StorageNodeState::nodeId).containsExactly("node-a");
    }

    @Test
    void testReRegistrationUpdatesAddress()
    {
        NodeRegistry registry = new NodeRegistry(catalog.nodes(), ticker, NODE_TIMEOUT);
        registry.register("node-a", "127.0.0.1:7001", 1000, 900, List.of());
        registry.register("node-a", "10.0.0.5:7001", 2000, 1900, List.of());

        assertThat(registry.nodes()).containsExactly(registry.node("node-a").orElseThrow());
        assertThat(registry.node("node-a").orElseThrow().address()).isEqualTo("10.0.0.5:7001");
        assertThat(new NodeRegistry(catalog.nodes(), ticker, NODE_TIMEOUT).node("node-a").orElseThrow().capacityBytes()).isEqualTo(2000);
    }

    @Test
    void testInvalidRegistrations()
    {
        NodeRegistry registry = new NodeRegistry(catalog.nodes(), ticker, NODE_TIMEOUT);
        assertStatusContains(() -> registry.register("", "127.0.0.1:7001", 1, 1, List.of()), INVALID_ARGUMENT, "Invalid node id ''");
        assertStatusContains(() -> registry.register("a,b", "127.0.0.1:7001", 1, 1, List.of()), INVALID_ARGUMENT, "Invalid node id 'a,b'");
        assertStatusContains(() -> registry.register("node-a", "127.0.0.1", 1, 1, List.of()), INVALID_ARGUMENT, "Invalid node address '127.0.0.1': expected host:port");
        assertStatusContains(() -> registry.register("node-a", "", 1, 1, List.of()), INVALID_ARGUMENT, "Invalid node address");
        assertStatusContains(() -> registry.register("node-a", "127.0.0.1:7001", -1, 1, List.of()), INVALID_ARGUMENT, "negative");
        assertThat(registry.nodes()).isEmpty();
    }
}
