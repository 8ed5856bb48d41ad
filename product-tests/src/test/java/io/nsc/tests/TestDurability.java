package io.nsc.tests;

import io.grpc.ManagedChannel;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.GetTableFilesRequest;
import io.nsc.protocol.proto.GetTableRequest;
import io.nsc.protocol.proto.ListNodesRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.MetadataServiceGrpc.MetadataServiceBlockingStub;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.tests.cluster.NscCluster;
import io.nsc.tests.cluster.NscClusterExtension;
import io.nsc.tests.cluster.ProcessCluster;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Bytes rot, nodes die for good, nodes are retired: every query in between answers correctly,
 * and the cluster brings every file back to its replication by itself. The cluster runs with a
 * 10 s replica-loss timeout (see ProcessCluster). Each test leaves every file fully replicated;
 * the last one leaves a drained, empty node behind, so this class runs after all others.
 */
@ExtendWith(NscClusterExtension.class)
@Order(Integer.MAX_VALUE)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
final class TestDurability
{
    // the connector's default nsc.table-files-cache-ttl, which the process cluster keeps
    private static final Duration TABLE_FILES_CACHE_TTL = Duration.ofSeconds(10);
    private static final List<String> TABLES = List.of("lineitem", "orders", "customer", "part", "partsupp", "supplier", "nation", "region");
    private static final List<String> CHECKS = List.of(
            "SELECT count(*), sum(l_quantity), sum(l_extendedprice), min(l_comment) FROM %s.lineitem",
            "SELECT o_orderpriority, count(*), sum(o_totalprice) FROM %s.orders GROUP BY 1 ORDER BY 1",
            "SELECT count(*), sum(c_acctbal), max(c_name) FROM %s.customer",
            "SELECT count(*), sum(ps_supplycost) FROM %s.partsupp");

    @Test
    @Order(1)
    void testDamagedReplicaIsDetectedQuarantinedAndRepaired(NscCluster nscCluster)
            throws Exception
    {
        ProcessCluster cluster = processCluster(nscCluster);
        try (MetadataConnection connectionToMetadata = MetadataConnection.open(cluster); Connection connection = cluster.connect("nsc")) {
            MetadataServiceBlockingStub metadata = connectionToMetadata.stub();
            DataFile file = tableFiles(metadata, "lineitem").getFirst();
            String holder = file.getReplicaNodeIds(0);
            Path stored = storedFile(cluster, holder, file.getFileId());
            long damagedBefore = cluster.metrics("metadata").get("damaged_replicas_reported");
            long copiesBefore = cluster.metrics("metadata").get("copies_completed");

            // one bit flipped in every 4 kB of the first replica, footer included: whatever a
            // reader asks of this copy is damaged, and the file keeps its size
            byte[] bytes = Files.readAllBytes(stored);
            for (int position = 0; position < bytes.length; position += 4096) {
                bytes[position] ^= 0x01;
            }
            Files.write(stored, bytes);

            // every query answers correctly: the node refuses the damaged bytes, readers fail over
            Jdbc.assertChecksMatchTpch(connection, CHECKS);
            Map<String, Long> node = cluster.metrics(holder);
            assertThat(node.get("corrupt_reads") + node.get("corrupt_scans")).as("reads that met the damage on %s", holder).isPositive();
            assertThat(node.get("files_quarantined")).isPositive();
            assertThat(stored).doesNotExist();

            // reported, forgotten, copied back from the healthy replica to full replication
            awaitCondition("the damaged copy is reported and the file repaired", Duration.ofMinutes(2), () -> {
                Map<String, Long> service = cluster.metrics("metadata");
                return service.get("damaged_replicas_reported") > damagedBefore
                        && service.get("copies_completed") > copiesBefore
                        && service.get("under_replicated_files") == 0
                        && replicasOf(metadata, "lineitem", file.getFileId()).size() == file.getReplicaNodeIdsCount();
            });
            assertThat(replicasOf(metadata, "lineitem", file.getFileId())).doesNotContain(holder);
            Jdbc.assertChecksMatchTpch(connection, CHECKS);
        }
    }

    @Test
    @Order(2)
    void testLostNodeIsReplicatedElsewhereAndTrimmedWhenItReturns(NscCluster nscCluster)
            throws Exception
    {
        ProcessCluster cluster = processCluster(nscCluster);
        String victim = cluster.storageNodeIds().get(2);
        try (MetadataConnection connectionToMetadata = MetadataConnection.open(cluster); Connection connection = cluster.connect("nsc")) {
            MetadataServiceBlockingStub metadata = connectionToMetadata.stub();
            long held = replicaCounts(metadata).get(victim);
            assertThat(held).as("replicas on %s", victim).isPositive();
            long copiesBefore = cluster.metrics("metadata").get("copies_completed");
            long bytesBefore = cluster.metrics("metadata").get("bytes_copied");

            // The test before moved a replica (a damaged copy repaired on another node). The
            // coordinator plans from file listings it caches for nsc.table-files-cache-ttl, so a
            // listing made before that repair can still name the damaged copy: once the victim is
            // down, such a file would have no readable replica in it. Start from fresh listings.
            awaitCondition("replication settled", Duration.ofMinutes(2), () -> {
                Map<String, Long> service = cluster.metrics("metadata");
                return service.get("under_replicated_files") == 0 && service.get("copies_in_flight") == 0;
            });
            Thread.sleep(TABLE_FILES_CACHE_TTL.plusSeconds(1).toMillis());

            long killed = System.nanoTime();
            cluster.kill(victim);
            // every query in between answers correctly, while the service notices, waits out the
            // loss timeout and has the victim's files copied from the surviving replicas
            Duration repaired = null;
            long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
            while (repaired == null && System.nanoTime() < deadline) {
                Jdbc.assertChecksMatchTpch(connection, CHECKS);
                Map<String, Long> service = cluster.metrics("metadata");
                // files of other tests' tables with one replica on the victim cannot be repaired (unavailable)
                if (service.get("under_replicated_files").equals(service.get("unavailable_files"))
                        && service.get("copies_in_flight") == 0
                        && tpchFullyReplicatedWithout(metadata, victim)) {
                    repaired = Duration.ofNanos(System.nanoTime() - killed);
                }
            }
            assertThat(repaired).as("every file back at full replication within 3 minutes").isNotNull();
            long copies = cluster.metrics("metadata").get("copies_completed") - copiesBefore;
            long bytes = cluster.metrics("metadata").get("bytes_copied") - bytesBefore;
            assertThat(copies).as("copies made").isPositive().isLessThanOrEqualTo(held);
            // the figures the issue asks for; docs/ quote them from this output
            System.out.printf("nsc figure: %s of %s replicas (%s bytes) of lost node %s re-replicated %.1f s after the kill (loss timeout 10 s)%n",
                    copies, held, bytes, victim, repaired.toMillis() / 1000.0);
        }
        finally {
            cluster.startStopped();
        }
        // back: its copies are one too many; the catalog drops the surplus and the nodes delete them
        try (MetadataConnection connectionToMetadata = MetadataConnection.open(cluster); Connection connection = cluster.connect("nsc")) {
            MetadataServiceBlockingStub metadata = connectionToMetadata.stub();
            awaitCondition("surplus replicas trimmed", Duration.ofMinutes(2), () -> TABLES.stream()
                    .flatMap(table -> tableFiles(metadata, table).stream())
                    .allMatch(file -> file.getReplicaNodeIdsCount() == 2));
            assertThat(cluster.metrics("metadata").get("replicas_trimmed")).isPositive();
            Jdbc.assertChecksMatchTpch(connection, CHECKS);
        }
    }

    @Test
    @Order(3)
    void testDrainLeavesTheNodeEmptyAndEveryFileFullyReplicated(NscCluster nscCluster)
            throws Exception
    {
        ProcessCluster cluster = processCluster(nscCluster);
        String drained = cluster.storageNodeIds().get(1);
        try (MetadataConnection connectionToMetadata = MetadataConnection.open(cluster); Connection connection = cluster.connect("nsc")) {
            MetadataServiceBlockingStub metadata = connectionToMetadata.stub();
            NscCommand.Result drain = cluster.command().run(5, "drain", drained, "--timeout", "4m");
            assertThat(drain.exitCode()).as("./nsc drain %s:%n%s", drained, drain.output()).isZero();
            assertThat(drain.output()).contains(drained + " is drained");

            assertThat(replicaCounts(metadata).getOrDefault(drained, 0L)).isZero();
            assertThat(cluster.metrics(drained).get("file_count")).isZero();
            assertThat(cluster.metrics("metadata").get("under_replicated_files")).isZero();
            for (String table : TABLES) {
                for (DataFile file : tableFiles(metadata, table)) {
                    assertThat(file.getReplicaNodeIdsList()).as("replicas of %s", file.getFileId()).hasSize(2).doesNotContain(drained);
                }
            }
            Jdbc.assertChecksMatchTpch(connection, CHECKS);
            // a write while one node drains lands on the others
            try (Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE nsc.tpch.while_draining AS SELECT * FROM tpch.tiny.orders");
                assertThat(tableFiles(metadata, "while_draining")).isNotEmpty().allSatisfy(file -> assertThat(file.getReplicaNodeIdsList()).doesNotContain(drained));
                statement.execute("DROP TABLE nsc.tpch.while_draining");
            }
        }
        finally {
            NscCommand.Result cancel = cluster.command().run(2, "drain", drained, "--cancel");
            assertThat(cancel.exitCode()).as("./nsc drain --cancel:%n%s", cancel.output()).isZero();
        }
    }

    private static ProcessCluster processCluster(NscCluster cluster)
    {
        // the tests reach into the nodes' data directories and the cluster's certificates
        assumeTrue(cluster instanceof ProcessCluster, "needs the process cluster's data directories");
        return (ProcessCluster) cluster;
    }

    /** The metadata service's gRPC API, as ./nsc's tools reach it. */
    private record MetadataConnection(ManagedChannel channel)
            implements AutoCloseable
    {
        static MetadataConnection open(ProcessCluster cluster)
        {
            return new MetadataConnection(GrpcChannels.forAddress(cluster.grpcAddress("metadata"), cluster.cliIdentity().toTransportSecurity()));
        }

        MetadataServiceBlockingStub stub()
        {
            return MetadataServiceGrpc.newBlockingStub(channel);
        }

        @Override
        public void close()
        {
            GrpcChannels.close(channel);
        }
    }

    private static boolean tpchFullyReplicatedWithout(MetadataServiceBlockingStub metadata, String lost)
    {
        return TABLES.stream()
                .flatMap(table -> tableFiles(metadata, table).stream())
                .allMatch(file -> file.getReplicaNodeIdsList().stream().filter(nodeId -> !nodeId.equals(lost)).count() >= 2);
    }

    private static List<DataFile> tableFiles(MetadataServiceBlockingStub metadata, String table)
    {
        long tableId = metadata.getTable(GetTableRequest.newBuilder().setSchemaName("tpch").setTableName(table).build()).getTableId();
        return metadata.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).setOmitColumnSketches(true).build()).getFilesList();
    }

    private static List<String> replicasOf(MetadataServiceBlockingStub metadata, String table, String fileId)
    {
        return tableFiles(metadata, table).stream()
                .filter(file -> file.getFileId().equals(fileId))
                .findFirst()
                .map(DataFile::getReplicaNodeIdsList)
                .orElseThrow();
    }

    private static Map<String, Long> replicaCounts(MetadataServiceBlockingStub metadata)
    {
        return metadata.listNodes(ListNodesRequest.getDefaultInstance()).getNodesList().stream()
                .collect(toImmutableMap(StorageNode::getNodeId, StorageNode::getReplicaCount));
    }

    private static Path storedFile(ProcessCluster cluster, String nodeId, String fileId)
    {
        Optional<Path> found = cluster.storageDataDirectories(nodeId).stream()
                .map(disk -> disk.resolve("files").resolve(fileId.substring(0, 2)).resolve(fileId + ".parquet"))
                .filter(Files::exists)
                .findFirst();
        return found.orElseThrow(() -> new IllegalStateException("file %s is on no disk of %s".formatted(fileId, nodeId)));
    }

    private static void awaitCondition(String description, Duration timeout, BooleanSupplier condition)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting until %s", description).isLessThan(deadline);
            Thread.sleep(500);
        }
    }
}
