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
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.connector.ConnectorMetadata.MODIFYING_ROWS_MESSAGE;
import static io.trino.spi.type.TinyintType.TINYINT;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.CompletableFuture.completedFuture;

/**
 * The rows a row-level DELETE deletes, of the files the engine routes to this sink (every deleted
 * row of a file comes to one sink: {@link NscNodePartitioningProvider}). Once they are all in, each
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
    private final Supplier<ConnectorPageSink> rewriteSinks;
    // by file id, in the order the files first came; keys copied out of the engine's blocks
    private final Map<Slice, DeletedRows> deleted = new LinkedHashMap<>();
    private Optional<ConnectorPageSink> rewrite = Optional.empty();

    /**
     * @param pageSources reads the files to rewrite, as raw splits
     * @param rewriteSinks a page sink of the table, as an INSERT writes it: made only when a file is rewritten
     */
    public static NscMergeSink create(
            NscMergeTableHandle handle,
            NscMetadataClient client,
            ConnectorPageSourceProvider pageSources,
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            Supplier<ConnectorPageSink> rewriteSinks)
    {
        return new NscMergeSink(handle.table(), new DeletedFileLookup(client), new SurvivingRowsCopier(pageSources, transaction, session, handle.table()), rewriteSinks);
    }

    NscMergeSink(NscTableHandle table, DeletedFileLookup lookup, SurvivingRowsCopier copier, Supplier<ConnectorPageSink> rewriteSinks)
    {
        this.table = requireNonNull(table, "table is null");
        this.lookup = requireNonNull(lookup, "lookup is null");
        this.copier = requireNonNull(copier, "copier is null");
        this.rewriteSinks = requireNonNull(rewriteSinks, "rewriteSinks is null");
    }

    @Override
    public void storeMergedRows(Page page)
    {
        int channels = page.getChannelCount();
        Block operations = page.getBlock(channels - 3);
        Block rowIds = page.getBlock(channels - 1);
        for (int position = 0; position < page.getPositionCount(); position++) {
            if (TINYINT.getByte(operations, position) != DELETE_OPERATION_NUMBER) {
                // UPDATE and MERGE are refused while planned (getRowChangeParadigm): a row of theirs is a bug
                throw new TrinoException(NOT_SUPPORTED, MODIFYING_ROWS_MESSAGE);
            }
            rowsOf(RowIds.fileId(rowIds, position)).add(RowIds.rowPosition(rowIds, position));
        }
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
        if (deleted.isEmpty()) {
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
                    long copied = copier.copy(file, rows, rewriteSink());
                    if (copied != survivors.survivingRows()) {
                        // never commit a rewrite that lost or invented rows
                        throw new TrinoException(NSC_BAD_DATA, "nsc file %s read back %s surviving rows of its table's version %s, whose listing says %s"
                                .formatted(fileId, copied, table.version(), survivors.survivingRows()));
                    }
                    rewritten.add(fileId);
                }
            }
        });
        List<NscWriteFragment> written = rewrite
                .<List<NscWriteFragment>>map(sink -> getFutureValue(sink.finish()).stream().map(NscWriteFragment::fromSlice).collect(toImmutableList()))
                .orElse(List.of());
        log.debug("DELETE from %s: %s files and row groups of %s files removed in the metadata, %s files rewritten into %s",
                table.schemaTableName(), removed.size(), removedRowGroups.size(), rewritten.size(), written.size());
        return completedFuture(List.of(new NscDeleteFragment(removed, removedRowGroups, rewritten, written).toSlice()));
    }

    private ConnectorPageSink rewriteSink()
    {
        if (rewrite.isEmpty()) {
            rewrite = Optional.of(rewriteSinks.get());
        }
        return rewrite.get();
    }

    /** Uploaded rewrites are never committed: the storage nodes reclaim them as orphans. */
    @Override
    public void abort()
    {
        rewrite.ifPresent(ConnectorPageSink::abort);
    }
}
