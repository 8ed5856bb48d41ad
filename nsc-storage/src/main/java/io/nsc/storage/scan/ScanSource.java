package io.nsc.storage.scan;

import com.google.common.util.concurrent.UncheckedExecutionException;
import io.nsc.parquet.memory.MemoryBudget;
import io.nsc.parquet.scan.FilteredScan;
import io.nsc.parquet.scan.ParquetScanReader;
import io.nsc.parquet.scan.RowGroupPageIndexes;
import io.nsc.storage.memory.PoolReservation;
import io.nsc.storage.store.ParquetFileStore;
import io.nsc.storage.store.StoredFile;
import io.trino.memory.context.AggregatedMemoryContext;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.BlockMetadata;
import io.trino.parquet.metadata.ColumnChunkMetadata;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.reader.MetadataReader;
import io.trino.spi.Page;
import org.apache.parquet.hadoop.metadata.ColumnPath;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import static com.google.common.base.Preconditions.checkState;
import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;
import static java.util.Objects.requireNonNull;

/**
 * The stored file a scan reads and the filtered reader over it, with what they hold in the scan's
 * memory: the file's footer and page indexes (from the scanner's caches, or read here) and the
 * reader's buffers. Opened in one step that may fail half-way: the file is held from the moment
 * it is opened, so that however the scan ends it is closed once, and its disk reads counted, even
 * when its footer turns out unreadable.
 * <p>
 * Not thread-safe: a call's steps run one at a time.
 */
final class ScanSource
        implements Closeable
{
    private final ParquetFileStore store;
    private final StoredFile file;
    private final ScanCaches caches;
    private final ParquetReaderOptions readerOptions;
    // the scan's share of the node's pool: the footer and page indexes the scan holds grow it
    private final PoolReservation reservation;
    private final ScanStatuses statuses;
    private final AggregatedMemoryContext readerMemory = newSimpleAggregatedMemoryContext();
    private final BudgetCharge readerBuffers;

    // null until opened: the file, then the reader over it
    private StoredParquetDataSource dataSource;
    private FilteredScan scan;

    ScanSource(
            ParquetFileStore store,
            StoredFile file,
            ScanCaches caches,
            ParquetReaderOptions readerOptions,
            MemoryBudget memory,
            PoolReservation reservation,
            ScanStatuses statuses)
    {
        this.store = requireNonNull(store, "store is null");
        this.file = requireNonNull(file, "file is null");
        this.caches = requireNonNull(caches, "caches is null");
        this.readerOptions = requireNonNull(readerOptions, "readerOptions is null");
        this.readerBuffers = new BudgetCharge(requireNonNull(memory, "memory is null"), "the Parquet reader's buffers");
        this.reservation = requireNonNull(reservation, "reservation is null");
        this.statuses = requireNonNull(statuses, "statuses is null");
    }

    /**
     * Opens the file and the reader of the plan's row groups.
     *
     * @throws java.nio.file.NoSuchFileException when the file was deleted since the lookup
     */
    void open(ScanPlan plan, List<Integer> rowGroups)
            throws IOException
    {
        checkState(dataSource == null, "already opened");
        dataSource = new StoredParquetDataSource(file, store.openReader(file), readerOptions);
        ParquetMetadata footer = footer();
        plan.checkRowGroupsInFile(footer);
        ParquetScanReader reader = ParquetScanReader.create(
                dataSource,
                footer,
                rowGroups,
                plan.columns(),
                plan.predicate(),
                this::pageIndexes,
                readerOptions,
                readerMemory,
                statuses::badData);
        scan = new FilteredScan(reader, plan.computed(), plan.filter(), plan.outputChannels(), plan.limit());
    }

    /** Whether the file was opened (its disk reads count even if the reader was not). */
    boolean fileOpened()
    {
        return dataSource != null;
    }

    /** Whether the reader was opened: the scan can produce pages. */
    boolean readerOpened()
    {
        return scan != null;
    }

    /** The next page of filtered rows, null after the last; the reader's buffers are charged to the budget. */
    Page nextPage()
            throws IOException
    {
        Page page = scan.nextPage();
        // the reader's buffers (column chunks, decompressed pages) grow and shrink with the row groups
        readerBuffers.chargeTo(readerMemory.getBytes());
        return page;
    }

    long rowsScanned()
    {
        checkState(scan != null, "reader not opened");
        return scan.rowsScanned();
    }

    /** Bytes read from disk, including what checking whole blocks added to the reads. */
    long diskBytesRead()
    {
        checkState(dataSource != null, "file not opened");
        return dataSource.diskBytesRead();
    }

    /** Closes the reader, which closes the file, or the file alone when the reader was not opened. */
    @Override
    public void close()
            throws IOException
    {
        if (scan != null) {
            scan.close();
        }
        else if (dataSource != null) {
            dataSource.close();
        }
    }

    /**
     * The file's footer, from the cache or parsed here. The scan holds it until it ends, so its
     * bytes are the scan's in the node's pool (the cache's own bytes are reserved for the cache).
     */
    private ParquetMetadata footer()
    {
        try {
            ParsedFooter parsed = caches.footers().get(file.id(), () -> ParsedFooter.of(MetadataReader.readFooter(dataSource, Optional.empty())));
            reservation.grow(parsed.retainedBytes(), "the file's footer");
            return parsed.metadata();
        }
        catch (ExecutionException | UncheckedExecutionException e) {
            throw statuses.badData(e.getCause());
        }
    }

    /**
     * A row group's page indexes, from the cache or read here, of all its columns, since the next
     * scan of the file may filter and read others. Held by the scan like its footer.
     */
    private RowGroupPageIndexes pageIndexes(int rowGroup, BlockMetadata block, Set<ColumnPath> columns)
            throws IOException
    {
        try {
            RowGroupPageIndexes indexes = caches.pageIndexes().get(
                    new ScanCaches.RowGroup(file.id(), rowGroup),
                    () -> RowGroupPageIndexes.read(dataSource, block, block.columns().stream().map(ColumnChunkMetadata::getPath).collect(toImmutableSet())));
            reservation.grow(indexes.retainedBytes(), "a row group's page indexes");
            return indexes;
        }
        catch (ExecutionException | UncheckedExecutionException e) {
            throw statuses.badData(e.getCause());
        }
    }
}
