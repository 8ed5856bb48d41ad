package io.nsc.tests;

import io.grpc.ManagedChannel;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.GetFileInfoRequest;
import io.nsc.protocol.proto.GetFileInfoResponse;
import io.nsc.protocol.proto.GetTableFilesRequest;
import io.nsc.protocol.proto.GetTableRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.MetadataServiceGrpc.MetadataServiceBlockingStub;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.tests.cluster.NscCluster;
import io.nsc.tests.cluster.NscClusterExtension;
import io.nsc.tests.cluster.ProcessCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static java.util.stream.Collectors.joining;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Components die and come back; SQL keeps answering correctly. Each test leaves the cluster
 * whole again for the tests after it.
 */
@ExtendWith(NscClusterExtension.class)
final class TestComponentFailures
{
    private static final List<String> CHECKS = List.of(
            "SELECT count(*), sum(l_quantity), min(l_shipdate), max(l_shipdate) FROM %s.lineitem",
            "SELECT o_orderpriority, count(*) FROM %s.orders WHERE o_orderdate >= DATE '1995-01-01' GROUP BY 1 ORDER BY 1",
            "SELECT n_name, count(*) FROM %s.customer JOIN %s.nation ON c_nationkey = n_nationkey GROUP BY 1 ORDER BY 1");
    private static final String PROBE = "SELECT * FROM "
            + "(SELECT sum(l_quantity) FROM nsc.tpch.lineitem), (SELECT sum(o_totalprice) FROM nsc.tpch.orders), "
            + "(SELECT sum(c_acctbal) FROM nsc.tpch.customer), (SELECT sum(p_retailprice) FROM nsc.tpch.part), "
            + "(SELECT sum(ps_supplycost) FROM nsc.tpch.partsupp), (SELECT sum(s_acctbal) FROM nsc.tpch.supplier), "
            + "(SELECT sum(n_regionkey) FROM nsc.tpch.nation), (SELECT sum(r_regionkey) FROM nsc.tpch.region)";
    private static final String LINEITEM_COPIES = "SELECT l.*, copy FROM tpch.tiny.lineitem l CROSS JOIN UNNEST(sequence(1, 20)) AS t(copy)";
    // checksum() is exact and independent of row order; to_hex so that JDBC compares strings, not arrays
    private static final String LINEITEM_CHECK = "SELECT count(*), "
            + Stream.of("copy", "l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity", "l_extendedprice", "l_discount", "l_tax",
                            "l_returnflag", "l_linestatus", "l_shipdate", "l_commitdate", "l_receiptdate", "l_shipinstruct", "l_shipmode", "l_comment")
                    .map(column -> "to_hex(checksum(%s))".formatted(column))
                    .collect(joining(", "))
            + " FROM %s";
    private static final Pattern FAILOVERS = Pattern.compile("\"storage_replica_failovers\"\\s*:\\s*\\{[^}]*\"total\"\\s*:\\s*(\\d+)");

    @Test
    void testQueriesSurviveAKilledStorageNode(NscCluster cluster)
            throws Exception
    {
        String victim = cluster.storageNodeIds().get(1);
        try (Connection connection = cluster.connect("nsc")) {
            Jdbc.assertChecksMatchTpch(connection, CHECKS);
            long killed = System.nanoTime();
            cluster.kill(victim);
            // Reads whose first replica is the dead node fail over to the next one until the
            // metadata service notices the node is gone (metadata.node-timeout, 10 s) and the
            // coordinator's file list is refreshed: the probe runs first, inside that window. It
            // reads a column of every table, so some of its files have the victim first.
            Jdbc.QueryResult first = Jdbc.query(connection, PROBE);
            assertThat(replicaFailovers(cluster, first.queryId())).as("failovers right after the kill").isPositive();
            // every query right after the kill still returns correct rows
            Jdbc.assertChecksMatchTpch(connection, CHECKS);
            Duration withoutRetries = null;
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (withoutRetries == null && System.nanoTime() < deadline) {
                Jdbc.QueryResult result = Jdbc.query(connection, PROBE);
                assertThat(Jdbc.sameRows(result.rows(), first.rows())).as("probe rows %s vs %s", result.rows(), first.rows()).isTrue();
                if (replicaFailovers(cluster, result.queryId()) == 0) {
                    withoutRetries = Duration.ofNanos(System.nanoTime() - killed);
                }
            }
            assertThat(withoutRetries).as("a query without replica failovers within 2 minutes of the kill").isNotNull();
            // the figure the issue asks for; docs/ quote it from this output
            System.out.printf("nsc figure: first query without replica retries %.1f s after killing %s%n", withoutRetries.toMillis() / 1000.0, victim);
        }
        finally {
            cluster.startStopped();
        }
        try (Connection connection = cluster.connect("nsc")) {
            Jdbc.assertChecksMatchTpch(connection, CHECKS);
        }
        assertThat(cluster.metrics("metadata")).containsEntry("live_nodes", 3L);
    }

    @Test
    void testCtasSurvivesAStorageNodeKilledWhileItUploads(NscCluster nscCluster)
            throws Exception
    {
        // the table's placement is read over gRPC with the certificates in the process cluster's state directory
        assumeTrue(nscCluster instanceof ProcessCluster, "needs the process cluster's certificate directory");
        ProcessCluster cluster = (ProcessCluster) nscCluster;
        String victim = cluster.storageNodeIds().get(2);
        long replacedBefore = cluster.metrics("metadata").get("replicas_replaced");
        long victimUploadedBefore = cluster.metrics(victim).get("bytes_uploaded");
        Map<String, DataFile> onVictim;
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS nsc.product_survive");
            // 1.2 million lineitem rows (2 MB of Parquet) in the cluster's 256kB files: several files, two
            // replicas each on three nodes. Copies of tiny rather than sf1: generating sf1 takes longer
            // than the cluster's 30 s allocation timeout allows a write
            CompletableFuture<Void> ctas = CompletableFuture.runAsync(() -> {
                try {
                    statement.execute("CREATE TABLE nsc.product_survive.lineitem AS " + LINEITEM_COPIES);
                }
                catch (SQLException e) {
                    throw new RuntimeException(e);
                }
            });
            // kill the node once the write is uploading to it
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (cluster.metrics(victim).get("bytes_uploaded") == victimUploadedBefore && !ctas.isDone() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(ctas).as("the write must still run when the node is killed").isNotDone();
            cluster.kill(victim);
            ctas.join();

            assertThat(Jdbc.rows(connection, LINEITEM_CHECK.formatted("nsc.product_survive.lineitem")))
                    .isEqualTo(Jdbc.rows(connection, LINEITEM_CHECK.formatted("(%s)".formatted(LINEITEM_COPIES))));
            long replaced = cluster.metrics("metadata").get("replicas_replaced") - replacedBefore;
            assertThat(replaced).as("replicas re-placed").isPositive();
            // the files on the live nodes are where the catalog says; the victim's are checked once it is back
            onVictim = checkPlacement(cluster, victim, false);
            System.out.printf("nsc figure: CTAS with %s killed while it uploaded: %s replicas re-placed, %s files stored on %s before it died%n", victim, replaced, onVictim.size(), victim);
        }
        finally {
            cluster.startStopped();
        }
        // a file names the killed node only if the node stored it before it died
        assertThat(checkPlacement(cluster, victim, true).keySet()).containsAll(onVictim.keySet());
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE nsc.product_survive.lineitem");
            statement.execute("DROP SCHEMA nsc.product_survive");
        }
        assertThat(cluster.metrics("metadata")).containsEntry("live_nodes", 3L);
    }

    /**
     * Every file of the new table names two distinct nodes, and every node named holds the file
     * with the committed size and checksum; the victim's files are checked only when {@code
     * victimRunning}. A file that names the victim may name a third node: once the victim has been
     * gone for the replica-loss timeout (10 s here, shorter than this test's checks can take),
     * repair copies its files to a live node, and the victim's surplus copy is trimmed only after
     * it is back. A victim back from the dead may also name itself for a file it stored just before
     * it was killed, too late for its answer to reach the writer: then too the file has three.
     *
     * @return the files that name the victim
     */
    private static Map<String, DataFile> checkPlacement(ProcessCluster cluster, String victim, boolean victimRunning)
    {
        TransportSecurity security = cluster.cliIdentity().toTransportSecurity();
        ManagedChannel metadata = GrpcChannels.forAddress(cluster.grpcAddress("metadata"), security);
        Map<String, ManagedChannel> storage = new HashMap<>();
        try {
            MetadataServiceBlockingStub catalog = MetadataServiceGrpc.newBlockingStub(metadata);
            long tableId = catalog.getTable(GetTableRequest.newBuilder().setSchemaName("product_survive").setTableName("lineitem").build()).getTableId();
            List<DataFile> files = catalog.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).setOmitColumnSketches(true).build()).getFilesList();
            assertThat(files).hasSizeGreaterThan(5);
            Map<String, DataFile> onVictim = new HashMap<>();
            for (DataFile file : files) {
                boolean namesVictim = file.getReplicaNodeIdsList().contains(victim);
                assertThat(file.getReplicaNodeIdsList()).as(file.getFileId()).hasSizeBetween(2, victimRunning || namesVictim ? 3 : 2).doesNotHaveDuplicates();
                for (String node : file.getReplicaNodeIdsList()) {
                    if (node.equals(victim)) {
                        onVictim.put(file.getFileId(), file);
                        if (!victimRunning) {
                            continue;
                        }
                    }
                    ManagedChannel channel = storage.computeIfAbsent(node, id -> GrpcChannels.forAddress(cluster.grpcAddress(id), security));
                    GetFileInfoResponse info = StorageServiceGrpc.newBlockingStub(channel).getFileInfo(GetFileInfoRequest.newBuilder().setFileId(file.getFileId()).build());
                    assertThat(info.getSizeBytes()).as("%s on %s", file.getFileId(), node).isEqualTo(file.getSizeBytes());
                    assertThat(info.getCrc32C()).as("%s on %s", file.getFileId(), node).isEqualTo(file.getCrc32C());
                }
            }
            return onVictim;
        }
        finally {
            GrpcChannels.close(metadata);
            storage.values().forEach(GrpcChannels::close);
        }
    }

    @Test
    void testMetadataRestartKeepsEveryTable(NscCluster cluster)
            throws Exception
    {
        List<List<Object>> tablesBefore;
        try (Connection connection = cluster.connect("nsc")) {
            tablesBefore = Jdbc.rows(connection, "SELECT table_schema, table_name FROM nsc.information_schema.tables WHERE table_schema <> 'information_schema' ORDER BY 1, 2");
            assertThat(tablesBefore).hasSizeGreaterThanOrEqualTo(8);
        }
        cluster.kill("metadata");
        cluster.startStopped();
        try (Connection connection = cluster.connect("nsc")) {
            assertThat(Jdbc.rows(connection, "SELECT table_schema, table_name FROM nsc.information_schema.tables WHERE table_schema <> 'information_schema' ORDER BY 1, 2"))
                    .isEqualTo(tablesBefore);
            Jdbc.assertChecksMatchTpch(connection, CHECKS);
        }
    }

    /** storage_replica_failovers summed over the query's operators, from Trino's REST API. */
    private static long replicaFailovers(NscCluster cluster, String queryId)
    {
        String info = cluster.trinoRest("/v1/query/" + queryId);
        Matcher matcher = FAILOVERS.matcher(info);
        long total = 0;
        boolean found = false;
        while (matcher.find()) {
            found = true;
            total += Long.parseLong(matcher.group(1));
        }
        if (!found) {
            throw new IllegalStateException("query %s reports no storage_replica_failovers metric".formatted(queryId));
        }
        return total;
    }
}
