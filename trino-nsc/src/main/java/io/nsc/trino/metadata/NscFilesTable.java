package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.trino.spi.HostAddress;
import io.trino.spi.Page;
import io.trino.spi.PageBuilder;
import io.trino.spi.block.ArrayBlockBuilder;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.Type;

import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BiConsumer;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Collections.emptyIterator;
import static java.util.Objects.requireNonNull;

/**
 * The metadata tables of an nsc table, read from the file listing of its current version that
 * the coordinator plans from: {@code "<table>$files"}, one row per Parquet file with its replicas
 * in the order readers try them, and {@code "<table>$row_groups"}, one row per row group, the
 * unit the coordinator prunes. For operators, and for seeing what pruning has to work with. Row
 * groups a DELETE removed from a file are no longer the table's: a file's rows and row groups
 * count only the others (its size is still the whole file's), and no row lists them.
 */
public final class NscFilesTable
        implements SystemTable
{
    public enum Kind
    {
        FILES("$files", List.of(
                new ColumnMetadata("file_id", VARCHAR),
                new ColumnMetadata("row_count", BIGINT),
                new ColumnMetadata("size_bytes", BIGINT),
                new ColumnMetadata("row_groups", INTEGER),
                new ColumnMetadata("replicas", new ArrayType(VARCHAR)),
                new ColumnMetadata("removed_row_groups", INTEGER)),
                NscFilesTable::appendFile),
        ROW_GROUPS("$row_groups", List.of(
                new ColumnMetadata("file_id", VARCHAR),
                new ColumnMetadata("row_group", INTEGER),
                new ColumnMetadata("row_count", BIGINT),
                new ColumnMetadata("start_offset", BIGINT),
                new ColumnMetadata("compressed_bytes", BIGINT)),
                NscFilesTable::appendRowGroups);

        private final String suffix;
        private final List<ColumnMetadata> columns;
        private final BiConsumer<PageBuilder, FileEntry> rowsOfFile;

        Kind(String suffix, List<ColumnMetadata> columns, BiConsumer<PageBuilder, FileEntry> rowsOfFile)
        {
            this.suffix = suffix;
            this.columns = ImmutableList.copyOf(columns);
            this.rowsOfFile = rowsOfFile;
        }
    }

    /** A metadata table's name, taken apart: the table it describes, and which of its tables it is. */
    public record Name(SchemaTableName dataTable, Kind kind)
    {
        public Name
        {
            requireNonNull(dataTable, "dataTable is null");
            requireNonNull(kind, "kind is null");
        }

        /** Empty when {@code name} is no metadata table's name. */
        public static Optional<Name> parse(SchemaTableName name)
        {
            return Arrays.stream(Kind.values())
                    .flatMap(kind -> MetadataTableNames.dataTable(name, kind.suffix).map(table -> new Name(table, kind)).stream())
                    .findFirst();
        }
    }

    private final ConnectorTableMetadata tableMetadata;
    private final Kind kind;
    private final NscTableHandle table;
    private final TableFilesCache tableFiles;

    public NscFilesTable(SchemaTableName name, Kind kind, NscTableHandle table, TableFilesCache tableFiles)
    {
        this.kind = requireNonNull(kind, "kind is null");
        this.tableMetadata = new ConnectorTableMetadata(requireNonNull(name, "name is null"), kind.columns);
        this.table = requireNonNull(table, "table is null");
        this.tableFiles = requireNonNull(tableFiles, "tableFiles is null");
    }

    @Override
    public Distribution getDistribution()
    {
        return Distribution.SINGLE_COORDINATOR;
    }

    @Override
    public ConnectorTableMetadata getTableMetadata()
    {
        return tableMetadata;
    }

    /** Pages built batch by batch as the engine asks, so a table of millions of files is never held whole. */
    @Override
    public ConnectorPageSource pageSource(ConnectorTransactionHandle transaction, ConnectorSession session, TupleDomain<Integer> constraint)
    {
        List<Type> types = kind.columns.stream().map(ColumnMetadata::getType).toList();
        return new ListingPageSource(tableFiles.fileBatches(table), new PageBuilder(types), kind.rowsOfFile);
    }

    private static final class ListingPageSource
            implements ConnectorPageSource
    {
        private final TableFileBatches batches;
        private final PageBuilder page;
        private final BiConsumer<PageBuilder, FileEntry> rowsOfFile;
        private Iterator<FileEntry> batch = emptyIterator();
        private long completedPositions;
        private boolean finished;

        private ListingPageSource(TableFileBatches batches, PageBuilder page, BiConsumer<PageBuilder, FileEntry> rowsOfFile)
        {
            this.batches = requireNonNull(batches, "batches is null");
            this.page = requireNonNull(page, "page is null");
            this.rowsOfFile = requireNonNull(rowsOfFile, "rowsOfFile is null");
        }

        @Override
        public SourcePage getNextSourcePage()
        {
            if (finished) {
                return null;
            }
            while (!page.isFull()) {
                if (!batch.hasNext()) {
                    if (!batches.hasNext()) {
                        // the listing is done: the last, partly filled page
                        close();
                        break;
                    }
                    batch = batches.next().iterator();
                    continue;
                }
                rowsOfFile.accept(page, batch.next());
            }
            if (page.isEmpty()) {
                return null;
            }
            Page built = page.build();
            page.reset();
            completedPositions += built.getPositionCount();
            return SourcePage.create(built);
        }

        @Override
        public boolean isFinished()
        {
            return finished;
        }

        @Override
        public long getCompletedBytes()
        {
            return 0;
        }

        @Override
        public OptionalLong getCompletedPositions()
        {
            return OptionalLong.of(completedPositions);
        }

        @Override
        public long getReadTimeNanos()
        {
            return 0;
        }

        @Override
        public long getMemoryUsage()
        {
            return page.getRetainedSizeInBytes();
        }

        /** Ends the listing (of the cache or the metadata service's pages), also when the query is cancelled. */
        @Override
        public void close()
        {
            if (!finished) {
                finished = true;
                batches.close();
            }
        }
    }

    private static void appendFile(PageBuilder page, FileEntry file)
    {
        page.declarePosition();
        VARCHAR.writeSlice(page.getBlockBuilder(0), utf8Slice(file.fileId()));
        BIGINT.writeLong(page.getBlockBuilder(1), file.remainingRowCount());
        BIGINT.writeLong(page.getBlockBuilder(2), file.sizeBytes());
        INTEGER.writeLong(page.getBlockBuilder(3), file.stats().rowGroupCount() - file.removedRowGroups().size());
        ((ArrayBlockBuilder) page.getBlockBuilder(4)).buildEntry(elements -> {
            for (HostAddress replica : file.replicas()) {
                VARCHAR.writeSlice(elements, utf8Slice(replica.toString()));
            }
        });
        INTEGER.writeLong(page.getBlockBuilder(5), file.removedRowGroups().size());
    }

    private static void appendRowGroups(PageBuilder page, FileEntry file)
    {
        CompactFileStats stats = file.stats();
        for (int rowGroup : file.remainingRowGroups()) {
            page.declarePosition();
            VARCHAR.writeSlice(page.getBlockBuilder(0), utf8Slice(file.fileId()));
            INTEGER.writeLong(page.getBlockBuilder(1), rowGroup);
            BIGINT.writeLong(page.getBlockBuilder(2), stats.rowGroupRowCount(rowGroup));
            BIGINT.writeLong(page.getBlockBuilder(3), stats.rowGroupOffset(rowGroup));
            BIGINT.writeLong(page.getBlockBuilder(4), stats.rowGroupCompressedSize(rowGroup));
        }
    }
}
