package io.nsc.trino.delete;

import io.airlift.log.Logger;
import io.airlift.slice.Slice;
import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.metadata.NscTableHandle;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.nsc.trino.write.NscWriteFragment;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.connector.ConnectorMergeSink;
import io.trino.spi.connector.ConnectorPageSink;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.MergePage;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.airlift.concurrent.MoreFutures.getFutureValue;
import static io.nsc.trino.NscErrorCode.NSC_BAD_DATA;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.CompletableFuture.completedFuture;

/**
 * The rows a DELETE, UPDATE or MERGE deletes, of the files the engine routes to this sink (every
 * deleted row of a file comes to one sink: {@link NscNodePartitioningProvider}), and the rows it
 * inserts (an UPDATE deletes the old row and inserts the new one). Inserted rows are written as an
 * INSERT writes them, into files of their own. Once the deleted rows are all in, each
 * file is settled on its own ({@link FileDeletion}): removed, or some of its row groups removed, in
 * the metadata alone, or rewritten copy-on-write: its surviving rows go through the write path an
 * INSERT takes (sorted by the table's {@code sorted_by}, in its row groups, with compact stats and
 * Bloom filters, uploaded to the table's replicas). The coordinator commits what every sink
 * settled in one metadata transaction; until then nothing it wrote is visible.
 */
public final class NscMergeSink
        implements ConnectorMergeSink
{
    private static final Logger log = Logger.get(NscMergeSink.class);

    private final NscTableHandle table;
    private final DeletedFileLookup lookup;
    private final SurvivingRowsCopier copier;
    private final int dataColumns;
    // by file id, in the order the files first came; keys copied out of the engine's blocks
    private final Map<Slice, DeletedRows> deleted = new LinkedHashMap<>();
    // survivors of rewritten files, and inserted rows: files of their own, each sink made on first use
    private final LazyPageSink rewrite;
    private final LazyPageSink insert;

    /**
     * @param pageSources reads the files to rewrite, as raw splits
     * @param rewriteSinks a page sink of the table, as an INSERT writes it: made only when a file is
     *        rewritten or a row inserted
     */
    public static NscMergeSink create(
            NscMergeTableHandle handle,
            NscMetadataClient client,
            ConnectorPageSourceProvider pageSources,
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            Supplier<ConnectorPageSink> rewriteSinks)
    {
        return new NscMergeSink(
                handle.table(),
                new DeletedFileLookup(client),
                new SurvivingRowsCopier(pageSources, transaction, session, handle.table()),
                rewriteSinks,
                handle.rewrite().columns().size());
    }

    /**
     * @param dataColumns the table's columns, as an INSERT writes them: the first channels of the engine's pages
     */
    NscMergeSink(NscTableHandle table, DeletedFileLookup lookup, SurvivingRowsCopier copier, Supplier<ConnectorPageSink> rewriteSinks, int dataColumns)
    {
        this.table = requireNonNull(table, "table is null");
        this.lookup = requireNonNull(lookup, "lookup is null");
        this.copier = requireNonNull(copier, "copier is null");
        requireNonNull(rewriteSinks, "rewriteSinks is null");
        this.rewrite = new LazyPageSink(rewriteSinks);
        this.insert = new LazyPageSink(rewriteSinks);
        this.dataColumns = dataColumns;
    }

    /** Pages of the table's columns, the operation, the merge case and the row id (DELETE_ROW_AND_INSERT_ROW: deletes and inserts only). */
    @Override
    public void storeMergedRows(Page page)
    {
        MergePage changes = MergePage.createDeleteAndInsertPages(page, dataColumns);
        changes.getDeletionsPage().ifPresent(deletions -> {
            Block rowIds = deletions.getBlock(dataColumns);
            for (int position = 0; position < deletions.getPositionCount(); position++) {
                rowsOf(RowIds.fileId(rowIds, position)).add(RowIds.rowPosition(rowIds, position));
            }
        });
        changes.getInsertionsPage().ifPresent(insertions -> insert.get().appendPage(insertions));
    }

    private DeletedRows rowsOf(Slice fileId)
    {
        DeletedRows rows = deleted.get(fileId);
        if (rows == null) {
            // the slice may be a view of the engine's page: the key must not keep the page alive
            Slice key = fileId.copy();
            rows = new DeletedRows(key.toStringUtf8());
            deleted.put(key, rows);
        }
        return rows;
    }

    @Override
    public CompletableFuture<Collection<Slice>> finish()
    {
        List<NscWriteFragment> inserted = insert.finish();
        if (deleted.isEmpty() && inserted.isEmpty()) {
            return completedFuture(List.of());
        }
        Map<String, DeletedRows> byFile = new LinkedHashMap<>();
        deleted.forEach((fileId, rows) -> byFile.put(fileId.toStringUtf8(), rows));
        Map<String, FileEntry> files = lookup.files(table.tableId(), table.version(), byFile.keySet());

        List<String> removed = new ArrayList<>();
        Map<String, List<Integer>> removedRowGroups = new HashMap<>();
        List<String> rewritten = new ArrayList<>();
        byFile.forEach((fileId, rows) -> {
            FileEntry file = files.get(fileId);
            switch (FileDeletion.of(file, rows, table.version())) {
                case FileDeletion.WholeFile _ -> removed.add(fileId);
                case FileDeletion.RowGroups rowGroups -> removedRowGroups.put(fileId, rowGroups.rowGroups());
                case FileDeletion.Rewrite survivors -> {
                    long copied = copier.copy(file, rows, rewrite.get());
                    if (copied != survivors.survivingRows()) {
                        // never commit a rewrite that lost or invented rows
                        throw new TrinoException(NSC_BAD_DATA, "nsc file %s read back %s surviving rows of its table's version %s, whose listing says %s"
                                .formatted(fileId, copied, table.version(), survivors.survivingRows()));
                    }
                    rewritten.add(fileId);
                }
            }
        });
        List<NscWriteFragment> written = rewrite.finish();
        log.debug("Row changes in %s: %s files and row groups of %s files removed in the metadata, %s files rewritten into %s, %s files of inserted rows",
                table.schemaTableName(), removed.size(), removedRowGroups.size(), rewritten.size(), written.size(), inserted.size());
        return completedFuture(List.of(new NscMergeFragment(removed, removedRowGroups, rewritten, written, inserted).toSlice()));
    }

    /** Uploaded files are never committed: the storage nodes reclaim them as orphans. */
    @Override
    public void abort()
    {
        rewrite.abort();
        insert.abort();
    }

    /** A page sink made on first use: a DELETE that removes whole files writes none. */
    private static final class LazyPageSink
    {
        private final Supplier<ConnectorPageSink> sinks;
        private Optional<ConnectorPageSink> sink = Optional.empty();

        LazyPageSink(Supplier<ConnectorPageSink> sinks)
        {
            this.sinks = sinks;
        }

        ConnectorPageSink get()
        {
            if (sink.isEmpty()) {
                sink = Optional.of(sinks.get());
            }
            return sink.get();
        }

        /** The files written, none if the sink was never made. */
        List<NscWriteFragment> finish()
        {
            return sink.<List<NscWriteFragment>>map(made -> getFutureValue(made.finish()).stream().map(NscWriteFragment::fromSlice).collect(toImmutableList()))
                    .orElse(List.of());
        }

        void abort()
        {
            sink.ifPresent(ConnectorPageSink::abort);
        }
    }
}
