package io.nsc.trino;

import io.grpc.ManagedChannel;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.GetTableFilesRequest;
import io.nsc.protocol.proto.GetTableRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.stats.CompactFileStats;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static java.util.stream.Collectors.toMap;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A table of a test cluster as its metadata service tells it, past Trino: its version, its files
 * with their compact stats, and the service's counters; tables are named {@code nsc.schema.table}.
 */
final class ServiceTables
{
    private ServiceTables() {}

    static long tableVersion(TestingNscCluster cluster, String table)
    {
        return onMetadataService(cluster, metadata -> metadata.getTable(getTableRequest(table)).getVersion());
    }

    static List<DataFile> tableFiles(TestingNscCluster cluster, String table)
    {
        return onMetadataService(cluster, metadata -> {
            long tableId = metadata.getTable(getTableRequest(table)).getTableId();
            return metadata.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).build()).getFilesList();
        });
    }

    /** How much each of the metadata service's counters grew since {@code before}. */
    static Map<String, Long> metricsDelta(TestingNscCluster cluster, Map<String, Long> before)
    {
        Map<String, Long> after = cluster.metadataMetrics();
        return after.entrySet().stream()
                .filter(entry -> before.containsKey(entry.getKey()))
                .collect(toMap(Map.Entry::getKey, entry -> entry.getValue() - before.get(entry.getKey())));
    }

    /** Each file's remaining row groups hold ascending ranges of the bigint column at {@code column}, as a sorted write leaves them. */
    static void assertSortedBy(TestingNscCluster cluster, String table, int column)
    {
        List<DataFile> files = tableFiles(cluster, table);
        assertThat(files).isNotEmpty();
        for (DataFile file : files) {
            CompactFileStats stats = CompactFileStats.wrap(file.getCompactStats().toByteArray());
            long previousMax = Long.MIN_VALUE;
            for (int rowGroup = 0; rowGroup < stats.rowGroupCount(); rowGroup++) {
                if (file.getRemovedRowGroupsList().contains(rowGroup)) {
                    continue;
                }
                assertThat(stats.hasMinMax(rowGroup, column)).isTrue();
                assertThat(stats.min(rowGroup, column)).as("row group %s of %s", rowGroup, file.getFileId()).isGreaterThanOrEqualTo(previousMax);
                previousMax = stats.max(rowGroup, column);
            }
        }
    }

    private static <T> T onMetadataService(TestingNscCluster cluster, Function<MetadataServiceGrpc.MetadataServiceBlockingStub, T> call)
    {
        ManagedChannel channel = GrpcChannels.forAddress(cluster.metadataAddress(), cluster.clientSecurity());
        try {
            return call.apply(MetadataServiceGrpc.newBlockingStub(channel));
        }
        finally {
            GrpcChannels.close(channel);
        }
    }

    private static GetTableRequest getTableRequest(String table)
    {
        String[] name = table.substring("nsc.".length()).split("\\.");
        return GetTableRequest.newBuilder().setSchemaName(name[0]).setTableName(name[1]).build();
    }
}
