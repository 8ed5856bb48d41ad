package io.nsc.trino.metadata;

import io.nsc.parquet.ParquetWriteCodec;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.trino.NscTableProperties;
import io.nsc.trino.write.NscInsertTableHandle;
import io.nsc.trino.write.NscOutputTableHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.SaveMode;
import io.trino.spi.connector.SchemaTableName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.nsc.trino.NscErrorCode.NSC_NOT_ENOUGH_STORAGE_NODES;
import static io.nsc.trino.metadata.TestingTransaction.NAME;
import static io.nsc.trino.metadata.TestingTransaction.SESSION;
import static io.nsc.trino.metadata.TestingTransaction.assertFails;
import static io.nsc.trino.metadata.TestingTransaction.fragment;
import static io.nsc.trino.metadata.TestingTransaction.table;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.StandardErrorCode.SCHEMA_NOT_FOUND;
import static io.trino.spi.StandardErrorCode.TABLE_ALREADY_EXISTS;
import static io.trino.spi.connector.RetryMode.NO_RETRIES;
import static io.trino.spi.connector.RetryMode.RETRIES_ENABLED;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * What {@link NscTableWrites} checks before a write and sends the metadata service after it,
 * against a {@link RecordingMetadataService}: the SQL-level behaviour is in
 * {@link io.nsc.trino.TestNscWrites} and {@link io.nsc.trino.TestNscSingleNodeWrites}.
 */
final class TestNscTableWrites
{
    // column b was dropped: its slot stays in the files
    private static final TableInfo TABLE = table()
            .addColumns(Column.newBuilder().setName("b").setType("varchar").setDropped(true))
            .addColumns(Column.newBuilder().setName("c").setType("double"))
            .build();
    private static final NscColumnHandle A = new NscColumnHandle("a", BIGINT, 0);
    private static final NscColumnHandle C = new NscColumnHandle("c", DOUBLE, 2);

    private final TestingTransaction transaction = TestingTransaction.start();
    private final RecordingMetadataService service = transaction.service();
    private final PlannedTables plannedTables = transaction.plannedTables();
    private final NscTableWrites writes = transaction.writes();

    @AfterEach
    void close()
    {
        transaction.close();
    }

    @Test
    void testCreateTableAsIsCheckedBeforeAnythingIsWritten()
    {
        service.schemas.add("s");
        service.setLiveNodes(1);
        assertFails(() -> writes.beginCreateTable(newTable(NAME, Map.of()), NO_RETRIES, false), NSC_NOT_ENOUGH_STORAGE_NODES,
                "replication 2 (the default) needs 2 live storage nodes, but only 1 is live");
        service.setLiveNodes(2);
        assertFails(() -> writes.beginCreateTable(newTable(NAME, Map.of(NscTableProperties.REPLICATION, 3)), NO_RETRIES, false), NSC_NOT_ENOUGH_STORAGE_NODES,
                "replication 3 needs 3 live storage nodes, but only 2 are live");
        assertFails(() -> writes.beginCreateTable(newTable(NAME, Map.of()), RETRIES_ENABLED, false), NOT_SUPPORTED,
                "This connector does not support query retries");
        assertFails(() -> writes.beginCreateTable(newTable(new SchemaTableName("other", "t"), Map.of()), NO_RETRIES, false), SCHEMA_NOT_FOUND,
                "Schema other not found");

        NscOutputTableHandle created = (NscOutputTableHandle) writes.beginCreateTable(newTable(NAME, Map.of()), NO_RETRIES, false);
        assertThat(created.columns()).containsExactly(new NscColumnHandle("a", BIGINT, 0), new NscColumnHandle("b", VARCHAR, 1));
        assertThat(created.settings().compressionCodec()).isEqualTo(ParquetWriteCodec.ZSTD);

        service.addTable(TABLE);
        assertFails(() -> writes.beginCreateTable(newTable(NAME, Map.of()), NO_RETRIES, false), TABLE_ALREADY_EXISTS,
                "Table 's.t' already exists");
        assertThat(((NscOutputTableHandle) writes.beginCreateTable(newTable(NAME, Map.of()), NO_RETRIES, true)).replace()).isTrue();
        assertThat(service.commits).isEmpty();
    }

    @Test
    void testCreateTableAsCommitsTheTableWithItsFilesAndUnpinsIt()
    {
        service.schemas.add("s");
        service.setLiveNodes(2);
        service.addTable(TABLE);
        // pinned by an earlier reference in the transaction
        assertThat(plannedTables.pin(NAME)).contains(TABLE);
        NscOutputTableHandle handle = (NscOutputTableHandle) writes.beginCreateTable(
                new ConnectorTableMetadata(NAME, columns(), Map.of(NscTableProperties.COMPRESSION_CODEC, ParquetWriteCodec.GZIP), Optional.of("why")), NO_RETRIES, true);
        writes.finishCreateTable(SESSION, handle, List.of(fragment("0123456789abcdef0123456789abcdef")));

        CommitFilesRequest commit = service.commits.getFirst();
        assertThat(service.commits).hasSize(1);
        assertThat(commit.getCreateTable()).isTrue();
        assertThat(commit.getMustCreate()).isTrue();
        assertThat(commit.getReplace()).isTrue();
        assertThat(commit.getTableComment()).isEqualTo("why");
        assertThat(commit.getColumnsList()).extracting(Column::getName, Column::getType).containsExactly(tuple("a", "bigint"), tuple("b", "varchar"));
        assertThat(commit.getTablePropertiesMap()).isEqualTo(NscTableProperties.toStored(Map.of(NscTableProperties.COMPRESSION_CODEC, ParquetWriteCodec.GZIP)));
        assertThat(commit.getFilesList()).extracting(DataFile::getFileId).containsExactly("0123456789abcdef0123456789abcdef");

        // the transaction reads the table it wrote
        TableInfo replaced = TABLE.toBuilder().setTableId(8).setVersion(1).build();
        service.addTable(replaced);
        assertThat(plannedTables.pin(NAME)).contains(replaced);
    }

    @Test
    void testCreateTableKeepsColumnCommentsWhichCreateTableAsCannotTake()
    {
        service.setLiveNodes(2);
        List<ColumnMetadata> commented = List.of(ColumnMetadata.builder().setName("a").setType(BIGINT).setComment(Optional.of("the key")).build());
        writes.createTable(SESSION, new ConnectorTableMetadata(NAME, commented), SaveMode.IGNORE);
        assertThat(service.creates).hasSize(1);
        assertThat(service.creates.getFirst().getColumns(0).getComment()).isEqualTo("the key");
        assertThat(service.creates.getFirst().getIfNotExists()).isTrue();

        service.schemas.add("s");
        assertFails(() -> writes.beginCreateTable(new ConnectorTableMetadata(NAME, commented), NO_RETRIES, false), NOT_SUPPORTED,
                "This connector does not support creating tables with column comment");
    }

    @Test
    void testInsertWritesTheDroppedColumnsSlotsAndCommitsToTheTableItBegan()
    {
        service.setLiveNodes(2);
        service.addTable(TABLE);
        NscTableHandle table = NscTableHandle.forTable(NAME, 7, 3, List.of(A, C), Map.of());
        assertFails(() -> writes.beginInsert(table, List.of(C, A), NO_RETRIES), NOT_SUPPORTED,
                "nsc inserts need every column of s.t in table order, got [c:double, a:bigint]");

        NscInsertTableHandle insert = writes.beginInsert(table, List.of(A, C), NO_RETRIES);
        assertThat(insert.droppedColumns()).containsExactly(new NscColumnHandle("b", VARCHAR, 1));
        assertThat(insert.settings().replication()).isEqualTo(NscTableProperties.DEFAULT_REPLICATION);
        assertThat(NscTableWrites.toFileColumns(insert)).extracting(Column::getName, Column::getDropped)
                .containsExactly(tuple("a", false), tuple("b", true), tuple("c", false));

        // nothing written: no commit, the version stays
        writes.finishInsert(SESSION, insert, List.of());
        assertThat(service.commits).isEmpty();

        writes.finishInsert(SESSION, insert, List.of(fragment("0123456789abcdef0123456789abcdef")));
        CommitFilesRequest commit = service.commits.getFirst();
        assertThat(commit.getCreateTable()).isFalse();
        assertThat(commit.getExpectedTableId()).isEqualTo(7);
        assertThat(commit.getColumnsList()).isEqualTo(NscTableWrites.toFileColumns(insert));
        assertThat(commit.getFilesCount()).isEqualTo(1);
    }

    @Test
    void testWriterSettingsTakeTheTablesCodecAndCheckLiveNodesOnlyWhenAsked()
    {
        service.setLiveNodes(0);
        Map<String, Object> gzip = NscTableProperties.fromStored("s.t", NscTableProperties.toStored(Map.of(NscTableProperties.COMPRESSION_CODEC, ParquetWriteCodec.GZIP)));
        assertThat(writes.resolveWriterSettings(gzip).compressionCodec()).isEqualTo(ParquetWriteCodec.GZIP);
        assertThat(writes.resolveWriterSettings(Map.of()).compressionCodec()).isEqualTo(ParquetWriteCodec.ZSTD);
        assertFails(() -> writes.writerSettings(Map.of()), NSC_NOT_ENOUGH_STORAGE_NODES,
                "replication 2 (the default) needs 2 live storage nodes, but no storage node is live");
    }

    private static ConnectorTableMetadata newTable(SchemaTableName name, Map<String, Object> properties)
    {
        return new ConnectorTableMetadata(name, columns(), properties, Optional.empty());
    }

    private static List<ColumnMetadata> columns()
    {
        return List.of(new ColumnMetadata("a", BIGINT), new ColumnMetadata("b", VARCHAR));
    }
}
