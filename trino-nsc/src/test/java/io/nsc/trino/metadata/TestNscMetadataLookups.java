package io.nsc.trino.metadata;

import io.nsc.parquet.ParquetWriteCodec;
import io.trino.spi.catalog.CatalogName;
import io.trino.spi.connector.SchemaTableName;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static io.nsc.trino.metadata.TestingTransaction.NAME;
import static io.nsc.trino.metadata.TestingTransaction.SESSION;
import static io.trino.type.InternalTypeManager.TESTING_TYPE_MANAGER;
import static org.assertj.core.api.Assertions.assertThat;

/** How many calls to the metadata service resolving a name in a query costs. */
final class TestNscMetadataLookups
{
    @Test
    void testATableIsResolvedWithOneCall()
    {
        try (RecordingMetadataService service = new RecordingMetadataService()) {
            service.addTable(TestingTransaction.table().build());
            NscMetadata metadata = new NscMetadata(service.client(), TESTING_TYPE_MANAGER, new TableFilesCache(service.client(), service.config()), ParquetWriteCodec.ZSTD, new CatalogName("nsc"));
            // what Trino asks, in its order, of a table a query reads
            assertThat(metadata.getMaterializedView(SESSION, NAME)).isEmpty();
            assertThat(metadata.getView(SESSION, NAME)).isEmpty();
            NscTableHandle handle = (NscTableHandle) metadata.getTableHandle(SESSION, NAME, Optional.empty(), Optional.empty());
            assertThat(handle.tableId()).isEqualTo(7);
            assertThat(service.getTableCalls).hasValue(1);
            assertThat(service.getViewCalls).hasValue(0);

            // a name that is no table is looked up as a materialized view and as a view
            SchemaTableName other = new SchemaTableName("s", "v");
            assertThat(metadata.getMaterializedView(SESSION, other)).isEmpty();
            assertThat(metadata.getView(SESSION, other)).isEmpty();
            assertThat(metadata.getTableHandle(SESSION, other, Optional.empty(), Optional.empty())).isNull();
            assertThat(service.getViewCalls).hasValue(2);
        }
    }
}
