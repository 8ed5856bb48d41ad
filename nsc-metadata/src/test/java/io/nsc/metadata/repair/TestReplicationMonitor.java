package io.nsc.metadata.repair;

import com.google.protobuf.ByteString;
import io.airlift.units.Duration;
import io.nsc.metadata.TestingTicker;
import io.nsc.metadata.catalog.Allocation;
import io.nsc.metadata.catalog.CatalogDatabase;
import io.nsc.metadata.catalog.CommitRequest;
import io.nsc.metadata.catalog.FileEntry;
import io.nsc.metadata.catalog.H2CatalogDatabase;
import io.nsc.metadata.catalog.ReplicaCatalog;
import io.nsc.metadata.catalog.SchemaTableName;
import io.nsc.metadata.catalog.TableColumn;
import io.nsc.metadata.catalog.TestingCatalog;
import io.nsc.metadata.membership.NodeRegistry;
import io.nsc.metadata.security.GrantAuthority;
import io.nsc.protocol.proto.CopyTask;
import io.nsc.protocol.proto.DamagedReplica;
import io.nsc.protocol.proto.FailedCopy;
import io.nsc.protocol.proto.FileAttestation;
import io.nsc.protocol.security.SignedMessages;
import io.nsc.protocol.stats.CompactFileStats;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.nsc.metadata.TestingStats.compactStats;
import static io.nsc.metadata.TestingStats.fixedWidthCompactStats;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

final class TestReplicationMonitor
{
    private static final Duration NODE_TIMEOUT = new Duration(10, SECONDS);
    private static final Duration LOSS_TIMEOUT = new Duration(60, SECONDS);

    @TempDir
    Path dataDir;

    private final TestingTicker ticker = new TestingTicker();
    private CatalogDatabase database;
    private TestingCatalog catalog;
    private ReplicaCatalog replicas;
    private NodeRegistry registry;
    private GrantAuthority grants;
    private ReplicationMonitor monitor;
    private int nextFileId;

    @BeforeEach
    void setUp()
    {
        database = H2CatalogDatabase.open(dataDir);
        catalog = TestingCatalog.create(database, Clock.systemUTC());
        replicas = new ReplicaCatalog(database, 2);
        registry = new NodeRegistry(catalog.nodes(), ticker, Clock.systemUTC(), NODE_TIMEOUT, new Duration(1, SECONDS));
        // free space decides the copy target: node-c has the most
        registry.register("node-a", "127.0.0.1:7001", 1000, 500, List.of());
        registry.register("node-b", "127.0.0.1:7002", 1000, 600, List.of());
        registry.register("node-c", "127.0.0.1:7003", 1000, 900, List.of());
        grants = new GrantAuthority(new byte[32], Clock.systemUTC(), java.time.Duration.ofMinutes(30));
        monitor = new ReplicationMonitor(replicas, registry, ReplicationLeadership.sole(), grants, true, ticker, LOSS_TIMEOUT, new Duration(10, MINUTES), 4, new Duration(1, SECONDS));
        catalog.tables().createSchema("s", false);
    }

    @AfterEach
    void tearDown()
    {
        monitor.close();
        database.close();
    }

    @Test
    void testLostNodeIsRepairedAfterTheLossTimeoutAndTrimmedWhenItReturns()
    {
        FileEntry file = commit("node-a", "node-b");

        // node-b goes silent: not alive after the node timeout, but its replica still counts
        ticker.advance(20, SECONDS);
        heartbeat("node-a", "node-c");
        assertThat(monitor.check().underReplicated()).isZero();
        assertThat(monitor.tasksFor("node-c")).isEmpty();

        // past the loss timeout the file is copied, from node-a, to the live node that lacks it
        ticker.advance(50, SECONDS);
        heartbeat("node-a", "node-c");
        assertThat(monitor.check().underReplicated()).isEqualTo(1);
        List<CopyTask> tasks = monitor.tasksFor("node-c");
        assertThat(tasks).hasSize(1);
        CopyTask task = tasks.getFirst();
        assertThat(task.getFileId()).isEqualTo(file.fileId());
        assertThat(task.getSizeBytes()).isEqualTo(file.sizeBytes());
        assertThat(task.getCrc32C()).isEqualTo(file.crc32c());
        assertThat(task.getSourcesList()).extracting(source -> source.getNodeId()).containsExactly("node-a");
        assertThat(task.getGrant().getNodeId()).isEqualTo("node-c");
        // handed out once; the file is not planned twice while the copy runs
        assertThat(monitor.tasksFor("node-c")).isEmpty();
        monitor.check();
        assertThat(monitor.status().getCopiesInFlight()).isEqualTo(1);
        assertThat(monitor.isCopyTarget(file.fileId(), "node-c")).isTrue();

        monitor.copied("node-c", attestation("node-c", file));
        assertThat(replicaNodes(file)).containsExactly("node-a", "node-b", "node-c");
        assertThat(monitor.check().underReplicated()).isZero();
        assertThat(monitor.status().getCopiesCompleted()).isEqualTo(1);
        assertThat(monitor.status().getBytesCopied()).isEqualTo(file.sizeBytes());

        // node-b returns: three live replicas for two wanted; the newest copy goes, so the
        // writer's placement and read order come back
        heartbeat("node-a", "node-b", "node-c");
        monitor.check();
        assertThat(replicaNodes(file)).containsExactly("node-a", "node-b");
        assertThat(monitor.status().getReplicasTrimmed()).isEqualTo(1);
        assertThat(catalog.allocations().findOrphans("node-c", List.of(file.fileId()))).containsExactly(file.fileId());
    }

    @Test
    void testCopiesThatAreNotTheCommittedFileAreRefused()
    {
        FileEntry file = commit("node-a", "node-b");
        monitor.damaged("node-b", DamagedReplica.newBuilder().setFileId(file.fileId()).setReason("block 3 does not match").build());
        assertThat(replicaNodes(file)).containsExactly("node-a");
        heartbeat("node-a", "node-b", "node-c");
        monitor.check();
        // node-b just lost its copy: the emptiest node that does not hold the file gets it
        assertThat(monitor.tasksFor("node-c")).hasSize(1);

        // unsigned, another node's, or other bytes: nothing is committed
        monitor.copied("node-c", attestation("node-c", file).toBuilder().clearSignature().build());
        monitor.copied("node-c", attestation("node-b", file));
        monitor.copied("node-c", sign("node-c", attestation("node-c", file).toBuilder().setCrc32C(file.crc32c() + 1).build()));
        assertThat(replicaNodes(file)).containsExactly("node-a");
        assertThat(monitor.status().getCopiesFailed()).isEqualTo(3);

        // a failed copy is planned again at the next check
        monitor.check();
        assertThat(monitor.tasksFor("node-c")).hasSize(1);
        monitor.copyFailed("node-c", FailedCopy.newBuilder().setFileId(file.fileId()).setReason("source gone").build());
        monitor.check();
        assertThat(monitor.tasksFor("node-c")).hasSize(1);
        monitor.copied("node-c", attestation("node-c", file));
        assertThat(replicaNodes(file)).containsExactly("node-a", "node-c");
        assertThat(monitor.status().getDamagedReplicasReported()).isEqualTo(1);
    }

    @Test
    void testCopiesOfFilesAnEarlierReleaseCommittedAreAccepted()
    {
        // the catalog holds the stats in the fixed-width layout of an earlier release; the copying
        // node attests them as this release encodes them, from the file's footer
        ByteString earlierStats = fixedWidthCompactStats(10);
        assertThat(earlierStats.byteAt(4)).isEqualTo((byte) 1);
        FileEntry file = commit(earlierStats, "node-a");
        heartbeat("node-a", "node-b", "node-c");
        monitor.check();
        assertThat(monitor.tasksFor("node-c")).hasSize(1);

        ByteString currentStats = ByteString.copyFrom(CompactFileStats.wrap(earlierStats.toByteArray()).encoded());
        assertThat(currentStats).isNotEqualTo(earlierStats).isEqualTo(compactStats(10));
        monitor.copied("node-c", attestation("node-c", file, currentStats));
        assertThat(replicaNodes(file)).containsExactly("node-a", "node-c");
        assertThat(monitor.status().getCopiesFailed()).isZero();
    }

    @Test
    void testDamagedCopyIsRepairedOnAnotherNodeWhenThereIsOne()
    {
        FileEntry file = commit("node-c", "node-a");
        heartbeat("node-a", "node-b", "node-c");
        // node-c is the emptiest, but its disk just damaged the file: node-b gets the copy
        monitor.damaged("node-c", DamagedReplica.newBuilder().setFileId(file.fileId()).setReason("block 0 does not match").build());
        monitor.check();
        assertThat(monitor.tasksFor("node-c")).isEmpty();
        assertThat(monitor.tasksFor("node-b")).extracting(CopyTask::getFileId).containsExactly(file.fileId());
        monitor.copied("node-b", attestation("node-b", file));
        assertThat(replicaNodes(file)).containsExactly("node-a", "node-b");
    }

    @Test
    void testDamagedCopyGoesBackToItsNodeWhenNoOtherCanTakeIt()
    {
        FileEntry file = commit("node-a", "node-c");
        heartbeat("node-a", "node-b", "node-c");
        monitor.drain("node-b", true);
        monitor.damaged("node-c", DamagedReplica.newBuilder().setFileId(file.fileId()).setReason("footer does not match").build());
        monitor.check();
        assertThat(monitor.tasksFor("node-b")).isEmpty();
        assertThat(monitor.tasksFor("node-c")).extracting(CopyTask::getFileId).containsExactly(file.fileId());
    }

    @Test
    void testFileWithoutALiveReplicaIsUnavailable()
    {
        commit("node-a", "node-b");
        ticker.advance(70, SECONDS);
        heartbeat("node-c");
        ReplicationMonitor.ReplicationStatus status = monitor.check();
        assertThat(status.underReplicated()).isEqualTo(1);
        assertThat(status.unavailable()).isEqualTo(1);
        assertThat(monitor.tasksFor("node-c")).isEmpty();
    }

    @Test
    void testDrainMovesEveryReplicaOffTheNode()
    {
        FileEntry first = commit("node-a", "node-b");
        FileEntry second = commit("node-b", "node-c");
        monitor.drain("node-b", true);
        assertThat(registry.node("node-b").orElseThrow().draining()).isTrue();
        heartbeat("node-a", "node-b", "node-c");

        assertThat(monitor.check().underReplicated()).isEqualTo(2);
        List<CopyTask> toC = monitor.tasksFor("node-c");
        List<CopyTask> toA = monitor.tasksFor("node-a");
        assertThat(toC).extracting(CopyTask::getFileId).containsExactly(first.fileId());
        assertThat(toA).extracting(CopyTask::getFileId).containsExactly(second.fileId());
        // the draining node is a source, never a target
        assertThat(monitor.tasksFor("node-b")).isEmpty();
        monitor.copied("node-c", attestation("node-c", first));
        monitor.copied("node-a", attestation("node-a", second));

        monitor.check();
        assertThat(replicaNodes(first)).containsExactly("node-a", "node-c");
        assertThat(replicaNodes(second)).containsExactly("node-c", "node-a");
        assertThat(monitor.replicaCounts()).doesNotContainKey("node-b");
        // the draining mark survives a restart of the service
        assertThat(replicas.drainingNodes()).containsExactly("node-b");
        monitor.drain("node-b", false);
        assertThat(replicas.drainingNodes()).isEmpty();
    }

    @Test
    void testOnlyTheLeaderPlansRepairs()
    {
        AtomicBoolean leading = new AtomicBoolean();
        ReplicationMonitor follower = new ReplicationMonitor(replicas, registry, leading::get, grants, true, ticker, LOSS_TIMEOUT, new Duration(10, MINUTES), 4, new Duration(1, SECONDS));
        FileEntry file = commit("node-a", "node-b");
        monitor.damaged("node-b", DamagedReplica.newBuilder().setFileId(file.fileId()).setReason("block 3 does not match").build());
        heartbeat("node-a", "node-b", "node-c");

        // a follower counts what is under-replicated (its status is right) but plans no copy
        assertThat(follower.check().underReplicated()).isEqualTo(1);
        assertThat(follower.tasksFor("node-c")).isEmpty();
        assertThat(follower.status().getCopiesInFlight()).isZero();

        // it took over (the leader died): it plans at its next check
        leading.set(true);
        follower.check();
        assertThat(follower.tasksFor("node-c")).hasSize(1);

        // lost the leadership (its database session ended): it forgets its plans, and a copy
        // reported afterwards still commits, checked against the catalog
        leading.set(false);
        follower.check();
        assertThat(follower.status().getCopiesInFlight()).isZero();
        assertThat(follower.isCopyTarget(file.fileId(), "node-c")).isFalse();
        follower.copied("node-c", attestation("node-c", file));
        assertThat(replicaNodes(file)).containsExactly("node-a", "node-c");
        follower.close();
    }

    private FileEntry commit(String... nodes)
    {
        return commit(compactStats(10), nodes);
    }

    private FileEntry commit(ByteString stats, String... nodes)
    {
        String fileId = "%032x".formatted(++nextFileId);
        FileEntry file = new FileEntry(fileId, 1000 + nextFileId, 10, 0xCAFE0000 + nextFileId, stats, List.of(nodes), ByteString.EMPTY);
        catalog.allocations().addAllocations(List.of(new Allocation(fileId, Clock.systemUTC().millis(), List.of(nodes))));
        catalog.commits().commit(CommitRequest.createOrAppend(new SchemaTableName("s", "t"), List.of(new TableColumn("c", "bigint")), List.of(file), Map.of("replication", "2")));
        return file;
    }

    private void heartbeat(String... nodes)
    {
        for (String node : nodes) {
            long free = registry.node(node).orElseThrow().freeBytes();
            assertThat(registry.heartbeat(node, free, 0, 0)).isTrue();
        }
    }

    private List<String> replicaNodes(FileEntry file)
    {
        return replicas.fileReplicas().stream()
                .filter(replicated -> replicated.fileId().equals(file.fileId()))
                .findFirst()
                .orElseThrow()
                .nodeIds();
    }

    private FileAttestation attestation(String nodeId, FileEntry file)
    {
        return attestation(nodeId, file, file.compactStats());
    }

    private FileAttestation attestation(String nodeId, FileEntry file, ByteString attestedStats)
    {
        return sign(nodeId, FileAttestation.newBuilder()
                .setFileId(file.fileId())
                .setNodeId(nodeId)
                .setSizeBytes(file.sizeBytes())
                .setRowCount(file.rowCount())
                .setCrc32C(file.crc32c())
                .setCompactStatsSha256(ByteString.copyFrom(SignedMessages.sha256(attestedStats.toByteArray())))
                .build());
    }

    private FileAttestation sign(String nodeId, FileAttestation attestation)
    {
        return SignedMessages.signAttestation(grants.nodeKey(nodeId), attestation);
    }
}
