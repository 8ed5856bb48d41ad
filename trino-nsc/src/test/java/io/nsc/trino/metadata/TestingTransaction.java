package io.nsc.trino.metadata;

import io.airlift.slice.Slice;
import io.nsc.parquet.ParquetWriteCodec;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.trino.write.NscWriteFragment;
import io.trino.spi.ErrorCodeSupplier;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.SchemaTableName;
import io.trino.testing.TestingConnectorSession;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import java.util.List;

import static io.trino.type.InternalTypeManager.TESTING_TYPE_MANAGER;
import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One transaction's parts of the metadata over a {@link RecordingMetadataService}, wired as
 * {@link NscMetadata} wires them, with ZSTD the connector's default codec.
 */
record TestingTransaction(
        RecordingMetadataService service,
        PlannedTables plannedTables,
        NscTableWrites writes,
        NscRowChanges rowChanges,
        NscOptimize optimize)
        implements AutoCloseable
{
    static final ConnectorSession SESSION = TestingConnectorSession.builder().build();
    static final SchemaTableName NAME = new SchemaTableName("s", "t");

    TestingTransaction
    {
        requireNonNull(service, "service is null");
        requireNonNull(plannedTables, "plannedTables is null");
        requireNonNull(writes, "writes is null");
        requireNonNull(rowChanges, "rowChanges is null");
        requireNonNull(optimize, "optimize is null");
    }

    static TestingTransaction start()
    {
        RecordingMetadataService service = new RecordingMetadataService();
        PlannedTables plannedTables = new PlannedTables(service.client());
        TableFilesCache tableFilesCache = new TableFilesCache(service.client(), service.config());
        NscTableWrites writes = new NscTableWrites(service.client(), TESTING_TYPE_MANAGER, tableFilesCache, ParquetWriteCodec.ZSTD, plannedTables);
        return new TestingTransaction(
                service,
                plannedTables,
                writes,
                new NscRowChanges(service.client(), tableFilesCache, plannedTables, writes),
                new NscOptimize(service.client(), tableFilesCache, plannedTables, writes));
    }

    /** Table s.t, with id 7 at version 3, and its first column a bigint; a test adds the columns it needs. */
    static TableInfo.Builder table()
    {
        return TableInfo.newBuilder()
                .setTableId(7)
                .setSchemaName(NAME.getSchemaName())
                .setTableName(NAME.getTableName())
                .setVersion(3)
                .addColumns(Column.newBuilder().setName("a").setType("bigint"));
    }

    /** A file as a writer reports it to the coordinator. */
    static Slice fragment(String fileId)
    {
        return new NscWriteFragment(fileId, 100, 10, 0, "", List.of("live-0"), "", List.of()).toSlice();
    }

    static void assertFails(ThrowingCallable call, ErrorCodeSupplier errorCode, String message)
    {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(errorCode.toErrorCode()))
                .hasMessage(message);
    }

    @Override
    public void close()
    {
        service.close();
    }
}
