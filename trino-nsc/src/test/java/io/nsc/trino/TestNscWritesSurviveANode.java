package io.nsc.trino;

import io.grpc.ManagedChannel;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.GetFileInfoRequest;
import io.nsc.protocol.proto.GetFileInfoResponse;
import io.nsc.protocol.proto.GetTableFilesRequest;
import io.nsc.protocol.proto.GetTableFilesResponse;
import io.nsc.protocol.proto.GetTableRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static io.nsc.trino.NscErrorCode.NSC_STORAGE_ERROR;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Writes while a storage node is dead but the metadata service still counts it live, as it does
 * for a node that died moments ago: every file placed on it goes to another node instead, the
 * table keeps its replication, and a write that cannot store a file on {@code min_replicas}
 * nodes fails with the reason and leaves nothing.
 */
final class TestNscWritesSurviveANode
        extends AbstractTestQueryFramework
{
    private static final String DEAD = "storage-4";
    // checksum() is exact and order-independent; a sum of doubles depends on the order it adds them in
    private static final String ORDERS_CHECK = "SELECT count(*), sum(o_orderkey), checksum(o_totalprice), checksum(o_comment), checksum(o_orderdate) FROM %s";

    private TestingNscCluster cluster;

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        // the stopped node stays live to the metadata service for the whole class: placements keep choosing it
        cluster = closeAfterClass(TestingNscCluster.start(4, Map.of("metadata.node-timeout", "1h")));
        cluster.stopStorageNode(DEAD);
        // files of 64kB: each statement uploads many files, most of them placed on the dead node
        return NscQueryRunner.create(cluster, Map.of("nsc.writer-buffer-size", "1MB", "nsc.writer-target-file-size", "64kB"));
    }

    @Test
    void testReplicasOnADeadNodeArePlacedElsewhere()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS nsc.survive");
        long replacedBefore = cluster.metadataMetrics().get("replicas_replaced");

        assertUpdate("CREATE TABLE nsc.survive.orders WITH (replication = 3) AS SELECT * FROM tpch.tiny.orders", 15000);
        assertSameOrders("nsc.survive.orders", "tpch.tiny.orders");
        List<DataFile> files = assertReplicasHeld("orders", 3);
        // 3 of 4 nodes hold each file: nearly every placement included the dead node
        assertThat(cluster.metadataMetrics().get("replicas_replaced") - replacedBefore)
                .isPositive()
                .isLessThanOrEqualTo(files.size());

        replacedBefore = cluster.metadataMetrics().get("replicas_replaced");
        long inserted = (long) computeScalar("SELECT count(*) FROM tpch.tiny.orders WHERE o_orderkey < 20000");
        assertUpdate("INSERT INTO nsc.survive.orders SELECT * FROM tpch.tiny.orders WHERE o_orderkey < 20000", inserted);
        assertThat(query("SELECT count(*) FROM nsc.survive.orders")).matches("VALUES BIGINT '%s'".formatted(15000 + inserted));
        assertReplicasHeld("orders", 3);
        assertThat(cluster.metadataMetrics().get("replicas_replaced")).isGreaterThan(replacedBefore);

        assertUpdate("DROP TABLE nsc.survive.orders");
    }

    @Test
    void testMinReplicasKeepsFilesWithFewerReplicas()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS nsc.survive");
        // every file is placed on all four nodes, and no node is left to replace the dead one
        assertUpdate("CREATE TABLE nsc.survive.relaxed WITH (replication = 4, min_replicas = 3) AS SELECT * FROM tpch.tiny.orders", 15000);
        assertSameOrders("nsc.survive.relaxed", "tpch.tiny.orders");
        assertReplicasHeld("relaxed", 3);
        assertThat((String) computeScalar("SHOW CREATE TABLE nsc.survive.relaxed")).contains("min_replicas = 3", "replication = 4");
        assertUpdate("DROP TABLE nsc.survive.relaxed");
    }

    @Test
    void testTooFewReplicasFailTheWriteAndLeaveNothing()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS nsc.survive");
        String expected = "Could not store nsc file [0-9a-f]{32} on enough storage nodes: 3 of 4 replicas written, min_replicas is 4\\. Failures: "
                + "storage node storage-4 \\(127\\.0\\.0\\.1:\\d+\\): UNAVAILABLE: .*; "
                + "no node replaces storage-4: No storage node is left for another replica of file [0-9a-f]{32} \\(allocated: .*\\): every live storage node is already allocated to hold it";
        assertThat(query("CREATE TABLE nsc.survive.strict WITH (replication = 4) AS SELECT * FROM tpch.tiny.orders"))
                .failure().hasErrorCode(NSC_STORAGE_ERROR)
                .hasMessageMatching(expected);
        assertThat(query("SHOW TABLES FROM nsc.survive LIKE 'strict'")).returnsEmptyResult();

        assertUpdate("CREATE TABLE nsc.survive.strict (o_orderkey bigint) WITH (replication = 4)");
        assertThat(query("INSERT INTO nsc.survive.strict SELECT o_orderkey FROM tpch.tiny.orders"))
                .failure().hasErrorCode(NSC_STORAGE_ERROR)
                .hasMessageMatching(expected);
        assertThat(query("SELECT count(*) FROM nsc.survive.strict")).matches("VALUES BIGINT '0'");
        assertUpdate("DROP TABLE nsc.survive.strict");
    }

    private void assertSameOrders(String actual, String expected)
    {
        assertThat(query(ORDERS_CHECK.formatted(actual))).matches(ORDERS_CHECK.formatted(expected));
    }

    /**
     * Every file of the table names exactly {@code replicas} distinct nodes, never the dead one,
     * and each of them holds the file with the committed size and checksum.
     */
    private List<DataFile> assertReplicasHeld(String table, int replicas)
    {
        ManagedChannel metadata = GrpcChannels.forAddress(cluster.metadataAddress(), cluster.clientSecurity());
        try {
            long tableId = MetadataServiceGrpc.newBlockingStub(metadata).getTable(GetTableRequest.newBuilder().setSchemaName("survive").setTableName(table).build()).getTableId();
            GetTableFilesResponse tableFiles = MetadataServiceGrpc.newBlockingStub(metadata).getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).setOmitColumnSketches(true).build());
            assertThat(tableFiles.getFilesList()).hasSizeGreaterThan(4);
            Map<String, String> addresses = tableFiles.getNodesList().stream().collect(Collectors.toMap(StorageNode::getNodeId, StorageNode::getAddress));
            for (DataFile file : tableFiles.getFilesList()) {
                assertThat(file.getReplicaNodeIdsList()).as(file.getFileId()).hasSize(replicas).doesNotHaveDuplicates().doesNotContain(DEAD);
                for (String nodeId : file.getReplicaNodeIdsList()) {
                    GetFileInfoResponse info = fileInfo(addresses.get(nodeId), file.getFileId());
                    assertThat(info.getSizeBytes()).isEqualTo(file.getSizeBytes());
                    assertThat(info.getCrc32C()).isEqualTo(file.getCrc32C());
                }
            }
            assertThat(addresses.keySet()).isEqualTo(Set.of("storage-1", "storage-2", "storage-3"));
            return tableFiles.getFilesList();
        }
        finally {
            GrpcChannels.close(metadata);
        }
    }

    private GetFileInfoResponse fileInfo(String address, String fileId)
    {
        ManagedChannel channel = GrpcChannels.forAddress(address, cluster.clientSecurity());
        try {
            return StorageServiceGrpc.newBlockingStub(channel).getFileInfo(GetFileInfoRequest.newBuilder().setFileId(fileId).build());
        }
        finally {
            GrpcChannels.close(channel);
        }
    }
}
