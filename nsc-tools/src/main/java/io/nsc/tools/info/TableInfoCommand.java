package io.nsc.tools.info;

import com.google.common.base.Splitter;
import com.google.common.collect.Sets;
import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.client.MetadataAddresses;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.GetTableFilesRequest;
import io.nsc.protocol.proto.GetTableFilesResponse;
import io.nsc.protocol.proto.GetTableRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.MetadataServiceGrpc.MetadataServiceBlockingStub;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.tools.cli.Arguments;
import io.nsc.tools.cli.TlsOptions;
import io.nsc.tools.cli.UsageException;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import static io.nsc.tools.NscTool.EXIT_FAILED;
import static io.nsc.tools.NscTool.EXIT_OK;
import static io.nsc.tools.NscTool.EXIT_USAGE;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * Prints how a table is laid out: files, row groups, column chunks, replicas, and how many bytes
 * its compact stats take (the size every storage node and the coordinator hold per file).
 */
public final class TableInfoCommand
{
    public static final String USAGE = "nsc info --metadata host:port[,host:port...] " + TlsOptions.USAGE + " <schema>.<table>";

    // the service lowers it to its own limit
    private static final int PAGE_SIZE = 1000;
    private static final int CALL_TIMEOUT_SECONDS = 30;

    private TableInfoCommand() {}

    public static int run(List<String> args, PrintStream out, PrintStream err)
    {
        MetadataAddresses metadataAddresses;
        List<String> name;
        TransportSecurity security;
        try {
            Arguments arguments = Arguments.parse(args, Sets.union(Set.of("metadata"), TlsOptions.VALUE_OPTIONS), TlsOptions.FLAG_OPTIONS);
            metadataAddresses = MetadataAddresses.parse(arguments.required("metadata"));
            security = TlsOptions.parse(arguments);
            if (arguments.positionals().size() != 1) {
                throw new UsageException("need exactly one <schema>.<table>");
            }
            name = Splitter.on('.').splitToList(arguments.positionals().getFirst());
            if (name.size() != 2) {
                throw new UsageException("'%s' is not <schema>.<table>".formatted(arguments.positionals().getFirst()));
            }
        }
        catch (UsageException | IllegalArgumentException e) {
            err.println("nsc info: " + e.getMessage());
            err.println("usage: " + USAGE);
            return EXIT_USAGE;
        }

        ManagedChannel channel = GrpcChannels.forMetadataService(metadataAddresses, security);
        try {
            MetadataServiceBlockingStub metadata = MetadataServiceGrpc.newBlockingStub(channel);
            TableInfo table = metadata.withDeadlineAfter(CALL_TIMEOUT_SECONDS, SECONDS)
                    .getTable(GetTableRequest.newBuilder().setSchemaName(name.get(0)).setTableName(name.get(1)).build());
            print(out, table, metadata);
            return EXIT_OK;
        }
        catch (StatusRuntimeException e) {
            err.println("nsc info: " + e.getStatus().getCode() + ": " + e.getStatus().getDescription());
            return EXIT_FAILED;
        }
        finally {
            GrpcChannels.close(channel);
        }
    }

    /**
     * Prints each file as its page comes, then the table's totals: the files of the version
     * {@link TableInfo} named, a page at a time and without the column sketches nothing here
     * prints, so that a table of any size is described in bounded memory.
     */
    private static void print(PrintStream out, TableInfo table, MetadataServiceBlockingStub metadata)
    {
        long files = 0;
        long rows = 0;
        long bytes = 0;
        long rowGroups = 0;
        long chunks = 0;
        long statsBytes = 0;
        // per column: the row groups with a Bloom filter, and the filters' bytes
        long[] filters = new long[table.getColumnsCount()];
        long[] filterBytes = new long[table.getColumnsCount()];
        ByteString pageToken = ByteString.EMPTY;
        do {
            // a deadline per page: a large table takes many
            GetTableFilesResponse page = metadata.withDeadlineAfter(CALL_TIMEOUT_SECONDS, SECONDS).getTableFiles(GetTableFilesRequest.newBuilder()
                    .setTableId(table.getTableId())
                    .setVersion(table.getVersion())
                    .setPageSize(PAGE_SIZE)
                    .setPageToken(pageToken)
                    .setOmitColumnSketches(true)
                    .build());
            for (DataFile file : page.getFilesList()) {
                CompactFileStats stats = CompactFileStats.wrap(file.getCompactStats().toByteArray());
                // row groups a DELETE removed are still in the file, but none of their rows is the table's
                long fileRows = file.getRowCount() - file.getRemovedRowGroupsList().stream().mapToLong(stats::rowGroupRowCount).sum();
                int fileRowGroups = stats.rowGroupCount() - file.getRemovedRowGroupsCount();
                out.printf("file %s: %,d rows, %,d bytes, %d row groups%s, replicas %s%n",
                        file.getFileId(), fileRows, file.getSizeBytes(), fileRowGroups,
                        file.getRemovedRowGroupsCount() == 0 ? "" : " (%d more removed by DELETEs)".formatted(file.getRemovedRowGroupsCount()),
                        String.join(",", file.getReplicaNodeIdsList()));
                files++;
                rows += fileRows;
                bytes += file.getSizeBytes();
                rowGroups += fileRowGroups;
                chunks += stats.columnChunkCount();
                statsBytes += stats.sizeInBytes();
                for (int filter = 0; filter < stats.filterCount(); filter++) {
                    int column = stats.filterColumn(filter);
                    if (column < filters.length) {
                        filters[column]++;
                        filterBytes[column] += stats.filterLength(filter);
                    }
                }
            }
            pageToken = page.getNextPageToken();
        }
        while (!pageToken.isEmpty());
        out.printf("table %s.%s version %d: %d columns, %d files, %,d rows, %,d bytes, %d row groups, %d column chunks%n",
                table.getSchemaName(), table.getTableName(), table.getVersion(), table.getColumnsCount(), files, rows, bytes, rowGroups, chunks);
        long allFilterBytes = Arrays.stream(filterBytes).sum();
        out.printf("compact stats: %,d bytes in all, %.2f bytes per column chunk, %.2f without Bloom filters%n",
                statsBytes, perChunk(statsBytes, chunks), perChunk(statsBytes - allFilterBytes, chunks));
        for (int column = 0; column < filters.length; column++) {
            if (filters[column] > 0) {
                out.printf("bloom filter %s: %d of %d row groups, %,d bytes, %,.0f bytes per column chunk%n",
                        table.getColumns(column).getName(), filters[column], rowGroups, filterBytes[column], perChunk(filterBytes[column], filters[column]));
            }
        }
    }

    private static double perChunk(long bytes, long chunks)
    {
        return chunks == 0 ? 0.0 : (double) bytes / chunks;
    }
}
