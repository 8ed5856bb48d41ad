package io.nsc.trino.metadata;

import io.nsc.parquet.ParquetWriteCodec;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.trino.NscTableProperties;
import io.nsc.trino.delete.NscDeletePartitioningHandle;
import io.nsc.trino.delete.NscMergeFragment;
import io.nsc.trino.delete.NscMergeTableHandle;
import io.nsc.trino.delete.NscRowIdColumnHandle;
import io.nsc.trino.write.NscWriteFragment;
import io.trino.spi.connector.RowChangeParadigm;
import io.trino.spi.predicate.TupleDomain;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static io.nsc.trino.metadata.TestingTransaction.NAME;
import static io.nsc.trino.metadata.TestingTransaction.SESSION;
import static io.nsc.trino.metadata.TestingTransaction.assertFails;
import static io.nsc.trino.metadata.TestingTransaction.fragment;
import static io.nsc.trino.metadata.TestingTransaction.table;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.connector.RetryMode.NO_RETRIES;
import static io.trino.spi.connector.RetryMode.RETRIES_ENABLED;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link NscRowChanges} sends the metadata service for TRUNCATE, DELETE and MERGE, against
 * a {@link RecordingMetadataService} whose tables are empty: the SQL-level behaviour (rows read,
 * files rewritten) is in {@link io.nsc.trino.TestNscDelete}.
 */
final class TestNscRowChanges
{
    private static final TableInfo TABLE = table()
            .addColumns(Column.newBuilder().setName("b").setType("varchar").setDropped(true))
            .build();
    private static final NscColumnHandle A = new NscColumnHandle("a", BIGINT, 0);
    private static final Map<String, String> GZIP = NscTableProperties.toStored(Map.of(NscTableProperties.COMPRESSION_CODEC, ParquetWriteCodec.GZIP));
    private static final NscTableHandle HANDLE = NscTableHandle.forTable(NAME, 7, 3, List.of(A), GZIP);

    private final TestingTransaction transaction = TestingTransaction.start();
    private final RecordingMetadataService service = transaction.service();
    private final PlannedTables plannedTables = transaction.plannedTables();
    private final NscRowChanges rowChanges = transaction.rowChanges();

    @AfterEach
    void close()
    {
        transaction.close();
    }

    @Test
    void testRowsChangeByDeletingAndInsertingWholeRows()
    {
        assertThat(rowChanges.getRowChangeParadigm()).isEqualTo(RowChangeParadigm.DELETE_ROW_AND_INSERT_ROW);
        assertThat(rowChanges.getUpdateLayout()).contains(NscDeletePartitioningHandle.INSTANCE);
        assertThat(rowChanges.getMergeRowIdColumnHandle()).isInstanceOf(NscRowIdColumnHandle.class);
    }

    @Test
    void testMergeWritesAsTheTableSaysWithoutLiveNodes()
    {
        service.addTable(TABLE);
        // a DELETE that only removes files writes none: no live node is needed to begin
        service.setLiveNodes(0);
        NscMergeTableHandle merge = (NscMergeTableHandle) rowChanges.beginMerge(HANDLE, NO_RETRIES);
        assertThat(merge.table()).isEqualTo(HANDLE);
        assertThat(merge.rewrite().droppedColumns()).containsExactly(new NscColumnHandle("b", VARCHAR, 1));
        assertThat(merge.rewrite().settings().compressionCodec()).isEqualTo(ParquetWriteCodec.GZIP);
        assertFails(() -> rowChanges.beginMerge(HANDLE, RETRIES_ENABLED), NOT_SUPPORTED, "This connector does not support query retries");
    }

    @Test
    void testMergeCommitsItsRemovalsAndNewFilesAtOnceAgainstTheVersionItRead()
    {
        service.addTable(TABLE);
        assertThat(plannedTables.pin(NAME)).contains(TABLE);
        NscMergeTableHandle merge = (NscMergeTableHandle) rowChanges.beginMerge(HANDLE, NO_RETRIES);

        // no row matched, none inserted
        rowChanges.finishMerge(SESSION, merge, List.of());
        rowChanges.finishMerge(SESSION, merge, List.of(NscMergeFragment.deletion(List.of(), Map.of()).toSlice()));
        assertThat(service.commits).isEmpty();

        String removed = "00000000000000000000000000000001";
        String inserted = "00000000000000000000000000000002";
        NscMergeFragment changes = new NscMergeFragment(List.of(removed), Map.of(), List.of(), List.of(), List.of(NscWriteFragment.fromSlice(fragment(inserted))));
        rowChanges.finishMerge(SESSION, merge, List.of(changes.toSlice()));
        assertThat(service.commits).hasSize(1);
        CommitFilesRequest commit = service.commits.getFirst();
        assertThat(commit.getExpectedTableId()).isEqualTo(7);
        assertThat(commit.getCreateTable()).isFalse();
        assertThat(commit.getRemovals().getReadVersion()).isEqualTo(3);
        assertThat(commit.getRemovals().getRemovedFileIdsList()).containsExactly(removed);
        assertThat(commit.getFilesList()).extracting(DataFile::getFileId).containsExactly(inserted);
        // the slots of the files the statement began to write, the dropped one too
        assertThat(commit.getColumnsList()).isEqualTo(NscTableWrites.toFileColumns(merge.rewrite()));

        // the transaction reads the version the change committed
        TableInfo changed = TABLE.toBuilder().setVersion(4).build();
        service.addTable(changed);
        assertThat(plannedTables.pin(NAME)).contains(changed);
    }

    @Test
    void testMetadataOnlyDelete()
    {
        service.addTable(TABLE);
        // a scan that is not the table's rows any more is never deleted by its files' stats
        assertThat(rowChanges.applyDelete(HANDLE.withLimit(10))).isEmpty();
        assertThat(service.tableFilesCalls.get()).isZero();

        // an empty table: planned on its files, and nothing to commit
        assertThat(rowChanges.applyDelete(HANDLE)).contains(HANDLE);
        assertThat(rowChanges.executeDelete(SESSION, HANDLE)).isEqualTo(OptionalLong.of(0));
        // a predicate that matches nothing removes nothing, whatever the files
        assertThat(rowChanges.executeDelete(SESSION, HANDLE.withConstraint(TupleDomain.none(), true))).isEqualTo(OptionalLong.of(0));
        assertThat(service.commits).isEmpty();
    }

    @Test
    void testTruncateEmptiesTheTablePlannedAndUnpinsIt()
    {
        service.addTable(TABLE);
        assertThat(plannedTables.pin(NAME)).contains(TABLE);
        rowChanges.truncateTable(SESSION, HANDLE);
        assertThat(service.truncates).hasSize(1);
        assertThat(service.truncates.getFirst().getExpectedTableId()).isEqualTo(7);

        TableInfo truncated = TABLE.toBuilder().setTableId(8).setVersion(1).build();
        service.addTable(truncated);
        assertThat(plannedTables.pin(NAME)).isEqualTo(Optional.of(truncated));
    }
}
