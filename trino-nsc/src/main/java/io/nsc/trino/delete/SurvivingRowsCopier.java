package io.nsc.trino.delete;

import com.google.common.collect.ImmutableList;
import io.nsc.trino.metadata.NscTableHandle;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.nsc.trino.split.NscSplit;
import io.nsc.trino.split.ScanMode;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorPageSink;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.connector.SourcePage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

import static io.airlift.concurrent.MoreFutures.getFutureValue;
import static java.util.Objects.requireNonNull;

/**
 * Copies the rows of a file that a DELETE keeps into the page sink of its rewrite: the file's
 * remaining row groups are read the way a raw split reads them (byte ranges from a replica,
 * decoded on this worker), with each row's position, and every row whose position the DELETE did
 * not name goes on, with the table's live columns in table order, as an INSERT's rows would.
 */
final class SurvivingRowsCopier
{
    private final ConnectorPageSourceProvider pageSources;
    private final ConnectorTransactionHandle transaction;
    private final ConnectorSession session;
    // the table version the DELETE read, with no predicate: every row of the file is read
    private final NscTableHandle table;
    private final List<ColumnHandle> columns;

    SurvivingRowsCopier(ConnectorPageSourceProvider pageSources, ConnectorTransactionHandle transaction, ConnectorSession session, NscTableHandle table)
    {
        this.pageSources = requireNonNull(pageSources, "pageSources is null");
        this.transaction = requireNonNull(transaction, "transaction is null");
        this.session = requireNonNull(session, "session is null");
        this.table = NscTableHandle.forTable(table.schemaTableName(), table.tableId(), table.version(), table.columns(), table.properties());
        this.columns = ImmutableList.<ColumnHandle>builder()
                .addAll(table.columns())
                .add(new NscRowIdColumnHandle())
                .build();
    }

    /**
     * @return the rows copied
     */
    long copy(FileEntry file, DeletedRows deleted, ConnectorPageSink sink)
    {
        List<Integer> rowGroups = file.remainingRowGroups();
        long rows = rowGroups.stream().mapToLong(file.stats()::rowGroupRowCount).sum();
        long bytes = rowGroups.stream().mapToLong(file.stats()::rowGroupCompressedSize).sum();
        NscSplit split = new NscSplit(file.fileId(), file.sizeBytes(), rowGroups, rows, bytes, file.replicas(), ScanMode.RAW);
        int rowIdChannel = columns.size() - 1;
        int[] dataChannels = new int[rowIdChannel];
        for (int channel = 0; channel < dataChannels.length; channel++) {
            dataChannels[channel] = channel;
        }
        long copied = 0;
        try (ConnectorPageSource source = pageSources.createPageSource(transaction, session, split, table, columns, DynamicFilter.EMPTY)) {
            while (!source.isFinished()) {
                SourcePage page = source.getNextSourcePage();
                if (page == null) {
                    continue;
                }
                Block rowIds = page.getBlock(rowIdChannel);
                int[] kept = new int[page.getPositionCount()];
                int keptCount = 0;
                for (int position = 0; position < page.getPositionCount(); position++) {
                    if (!deleted.contains(RowIds.rowPosition(rowIds, position))) {
                        kept[keptCount++] = position;
                    }
                }
                if (keptCount > 0) {
                    Page survivors = page.getPage().getColumns(dataChannels).getPositions(kept, 0, keptCount);
                    getFutureValue(sink.appendPage(survivors));
                    copied += keptCount;
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return copied;
    }
}
