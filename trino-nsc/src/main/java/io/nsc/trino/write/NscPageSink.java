package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;
import io.airlift.log.Logger;
import io.airlift.slice.Slice;
import io.nsc.parquet.stats.ColumnSketches;
import io.nsc.trino.write.LocalParquetFile.Written;
import io.nsc.trino.write.WriteTypes.ParquetSchema;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorPageSink;
import io.trino.spi.type.Type;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static io.nsc.trino.NscErrorCode.NSC_WRITER_ERROR;
import static io.trino.spi.StandardErrorCode.NUMERIC_VALUE_OUT_OF_RANGE;
import static java.util.Objects.requireNonNull;

/**
 * Writes the pages one writer of a CREATE TABLE AS or INSERT receives as Parquet files of about
 * {@code nsc.writer-target-file-size}, each written to a local temporary file, uploaded to the
 * replicas the metadata service chose (another node taking the place of one that fails, see
 * {@link ReplicaUploader}), and deleted locally. The fragments {@link #finish()} returns name the
 * uploaded files; only the coordinator's commit makes them part of the table.
 *
 * <p>Memory stays within {@code nsc.writer-buffer-size} whatever the size of the files (unless a
 * single page is larger than a sorter's buffer). Without {@code sorted_by}, pages stream into the
 * file's writer, which holds about one row group and room to encode it. With it, a quarter of the
 * memory goes to the file's writer and the rest to a {@link SpillingSorter}: the rows are sorted
 * in memory when they fit, else spilled as sorted runs and merged into the file. Trino samples
 * {@link #getMemoryUsage()} between pages only: it reports the most the sink held during the last
 * page (a spill, a merge, a row group's encoding), so that Trino's accounting covers those.
 *
 * <p>Rows are encoded long after they arrive (a row group at a time, or when a sorted file's runs
 * are merged), so a file's size is estimated: the row groups written, plus the in-memory size of
 * the other rows at the compression this writer got so far (before its first row group, an
 * assumed {@link #ASSUMED_COMPRESSION}). A file is closed once the estimate reaches the target.
 * A sorted file's rows are gathered up to their estimate (Trino sizes dictionary and run-length
 * blocks per row, as the merge writes them); if their merge makes more than the
 * target, the merged rows are cut into several files, each sorted, in ascending ranges (rows of
 * equal keys may fall on both sides of a cut).
 */
public class NscPageSink
        implements ConnectorPageSink
{
    private static final Logger log = Logger.get(NscPageSink.class);

    // Parquet (ZSTD) bytes per byte of Trino pages before anything was written: TPC-H lineitem
    // makes 0.22. Overestimating the compression (as for the tables of other codecs, which store
    // more) only makes the first sorted merge cut its rows into several files; underestimating it
    // makes the first file small.
    static final double ASSUMED_COMPRESSION = 0.25;

    private final ParquetSchema schema;
    private final List<Type> types;
    private final NscWriterSettings settings;
    private final Optional<RowSorter> sorter;
    private final WriterResources resources;
    private final String fileNamePrefix;
    private final WrittenFileUploader uploader;

    private final List<Slice> fragments = new ArrayList<>();
    private long completedBytes;
    private long peakMemoryUsage;
    // the most held during the current (or last) appendPage or finish
    private long pagePeakMemoryUsage;
    // what the uploaded files hold, and the in-memory size of their pages: the compression so far
    private long uploadedFileBytes;
    private long uploadedPageBytes;

    // sorted_by tables: the rows of the next files, their count and the in-memory size of their pages
    private SpillingSorter sortedRows;
    private long sortedRowCount;
    private long sortedPageBytes;
    // the file being written: its rows' sketches and the in-memory size of their pages
    private LocalParquetFile file;
    private ColumnSketches sketches;
    private long filePageBytes;

    public NscPageSink(
            ParquetSchema schema,
            List<Type> types,
            NscWriterSettings settings,
            Optional<RowSorter> sorter,
            WriterResources resources,
            String fileNamePrefix,
            WrittenFileUploader uploader)
    {
        this.schema = requireNonNull(schema, "schema is null");
        this.types = ImmutableList.copyOf(types);
        this.settings = requireNonNull(settings, "settings is null");
        this.sorter = requireNonNull(sorter, "sorter is null");
        this.resources = requireNonNull(resources, "resources is null");
        this.fileNamePrefix = requireNonNull(fileNamePrefix, "fileNamePrefix is null");
        this.uploader = requireNonNull(uploader, "uploader is null");
    }

    @Override
    public CompletableFuture<?> appendPage(Page page)
    {
        if (page.getPositionCount() == 0) {
            return NOT_BLOCKED;
        }
        // a page may be a small view of large blocks: keep (and count) only what it shows
        page.compact();
        startMeasuringMemory();
        try {
            if (sorter.isPresent()) {
                appendSorted(sorter.get(), page);
            }
            else {
                appendUnsorted(page);
            }
        }
        catch (IOException | RuntimeException e) {
            throw failed(e);
        }
        return NOT_BLOCKED;
    }

    @Override
    public CompletableFuture<Collection<Slice>> finish()
    {
        startMeasuringMemory();
        try {
            if (sortedRows != null) {
                writeSortedFiles();
            }
            if (file != null) {
                uploadFile();
            }
        }
        catch (IOException | RuntimeException e) {
            throw failed(e);
        }
        log.debug("Page sink %s wrote %s files, peak memory %s bytes", fileNamePrefix, fragments.size(), peakMemoryUsage);
        return CompletableFuture.completedFuture(ImmutableList.copyOf(fragments));
    }

    /**
     * Drops what is held and deletes the local files: the file being written and any sorted runs.
     * Files already uploaded stay on the storage nodes: no commit will name them, so the nodes
     * reclaim them as orphans after their timeout, and no query ever sees them.
     */
    @Override
    public void abort()
    {
        pagePeakMemoryUsage = 0;
        sketches = null;
        if (sortedRows != null) {
            sortedRows.close();
            sortedRows = null;
        }
        if (file != null) {
            try {
                file.abort();
            }
            catch (IOException e) {
                log.warn(e, "Cannot delete temporary nsc file %s", file.path());
            }
            file = null;
        }
    }

    /** Bytes written to storage nodes, every replica counted. */
    @Override
    public long getCompletedBytes()
    {
        return completedBytes;
    }

    /**
     * The most the sink held during the last {@link #appendPage} or {@link #finish()}, or what it
     * holds now if more: the sorter's buffer or merge (with the pages being spilled, encoded and
     * decoded), and the file's row group with its encoding and write buffer.
     */
    @Override
    public long getMemoryUsage()
    {
        return Math.max(pagePeakMemoryUsage, currentMemoryUsage());
    }

    /** The most the sink held since it was created, measured as {@link #getMemoryUsage()} is. */
    public long getPeakMemoryUsage()
    {
        return peakMemoryUsage;
    }

    private void appendUnsorted(Page page)
            throws IOException
    {
        // A page may hold more than the file has room for (Trino's pages reach 1MB): the file
        // takes the rows that fill it, the next file the rest. Half the room at a time, since the
        // compression is learned as row groups are written.
        double pageBytesPerRow = (double) page.getSizeInBytes() / page.getPositionCount();
        int offset = 0;
        while (offset < page.getPositionCount()) {
            long room = resources.targetFileBytes() - (file == null ? 0 : estimatedFileBytes());
            int rows = (int) Math.min(page.getPositionCount() - offset, Math.max(1, Math.ceil(room / 2.0 / (pageBytesPerRow * compression()))));
            appendToFile(page.getRegion(offset, rows), resources.memoryBytes());
            offset += rows;
            if (estimatedFileBytes() >= resources.targetFileBytes()) {
                uploadFile();
            }
        }
    }

    private void appendSorted(RowSorter rowSorter, Page page)
            throws IOException
    {
        if (sortedRows == null) {
            sortedRows = new SpillingSorter(rowSorter, sorterMemoryBytes(), resources.tempDirectory(), fileNamePrefix);
        }
        sortedRows.add(page);
        sortedRowCount += page.getPositionCount();
        // Trino counts dictionary and run-length blocks per row, as the merge will write them
        sortedPageBytes += page.getSizeInBytes();
        recordMemoryUsage();
        if (sortedPageBytes * compression() >= resources.targetFileBytes()) {
            writeSortedFiles();
        }
    }

    private void writeSortedFiles()
            throws IOException
    {
        Iterator<Page> rows = sortedRows.sorted();
        long mergedRows = 0;
        long mergedPageBytes = 0;
        while (rows.hasNext()) {
            Page page = rows.next();
            appendToFile(page, resources.memoryBytes() - sorterMemoryBytes());
            mergedRows += page.getPositionCount();
            mergedPageBytes += page.getSizeInBytes();
            // cut where the file is full, unless the rows left would make a small file: they go in this one
            double restPageBytes = (double) (sortedRowCount - mergedRows) * mergedPageBytes / mergedRows;
            long smallFileBytes = resources.targetFileBytes() / 2;
            if (estimatedFileBytes() >= resources.targetFileBytes() && restPageBytes * compression() >= smallFileBytes) {
                uploadFile();
            }
        }
        // the runs are in the file now: delete them before the upload, which may take a while
        sortedRows.close();
        sortedRows = null;
        sortedRowCount = 0;
        sortedPageBytes = 0;
        if (file != null) {
            uploadFile();
        }
    }

    private void appendToFile(Page page, long memoryLimitBytes)
            throws IOException
    {
        if (file == null) {
            file = createFile(memoryLimitBytes);
            // the metadata service keeps these next to the file's stats: the table's NDV statistics
            sketches = ColumnSketches.create(types);
        }
        file.append(page);
        sketches.add(page);
        filePageBytes += page.getSizeInBytes();
        recordMemoryUsage();
    }

    private void uploadFile()
            throws IOException
    {
        Written written = file.finish();
        recordMemoryUsage();
        try {
            NscWriteFragment fragment = uploader.upload(written, settings.replication(), settings.minReplicas()).withColumnSketches(sketches.serialize());
            fragments.add(fragment.toSlice());
            completedBytes += written.sizeBytes() * fragment.replicaNodeIds().size();
            uploadedFileBytes += written.sizeBytes();
            uploadedPageBytes += filePageBytes;
        }
        finally {
            // quietly: a failed delete must not hide why the upload failed
            deleteQuietly(written.path());
            file = null;
            sketches = null;
            filePageBytes = 0;
        }
    }

    private static void deleteQuietly(Path path)
    {
        try {
            Files.deleteIfExists(path);
        }
        catch (IOException | RuntimeException e) {
            log.warn(e, "Cannot delete temporary nsc file %s", path);
        }
    }

    // Sorted files get three quarters of the memory for sorting, a quarter for the file's writer:
    // the writer's row group is all a merge adds to the sorter's pages.
    private long sorterMemoryBytes()
    {
        return resources.memoryBytes() - resources.memoryBytes() / 4;
    }

    /** The file's row groups written, and its other rows at the compression so far. */
    private long estimatedFileBytes()
    {
        return file.writtenBytes() + (long) (file.unwrittenPageBytes() * compression());
    }

    /** Parquet bytes per byte of pages in what this writer has written, the current file's row groups included. */
    private double compression()
    {
        long fileBytes = uploadedFileBytes;
        long pageBytes = uploadedPageBytes;
        if (file != null) {
            fileBytes += file.writtenBytes();
            pageBytes += filePageBytes - file.unwrittenPageBytes();
        }
        if (pageBytes <= 0 || fileBytes <= 0) {
            return ASSUMED_COMPRESSION;
        }
        return (double) fileBytes / pageBytes;
    }

    private LocalParquetFile createFile(long memoryLimitBytes)
            throws IOException
    {
        Files.createDirectories(resources.tempDirectory());
        Path path = resources.tempDirectory().resolve(fileNamePrefix + UUID.randomUUID() + ".parquet");
        return LocalParquetFile.create(path, schema, settings.rowGroupSize(), settings.bloomFilterColumns(), settings.compressionCodec(), memoryLimitBytes);
    }

    private long currentMemoryUsage()
    {
        return (sortedRows == null ? 0 : sortedRows.memoryUsage()) + (file == null ? 0 : file.memoryUsage());
    }

    private void startMeasuringMemory()
    {
        if (sortedRows != null) {
            sortedRows.resetPeakMemoryUsage();
        }
        if (file != null) {
            file.resetPeakMemoryUsage();
        }
        pagePeakMemoryUsage = currentMemoryUsage();
    }

    /** The sorter's and the file's peaks since the page began: an upper bound of what they held at once. */
    private void recordMemoryUsage()
    {
        long sorterPeak = sortedRows == null ? 0 : sortedRows.peakMemoryUsage();
        long filePeak = file == null ? 0 : file.peakMemoryUsage();
        pagePeakMemoryUsage = Math.max(pagePeakMemoryUsage, sorterPeak + filePeak);
        peakMemoryUsage = Math.max(peakMemoryUsage, pagePeakMemoryUsage);
    }

    /** Cleans up at once (the engine aborts later, if at all) and says what failed. */
    private TrinoException failed(Exception e)
    {
        String target = file != null ? "nsc file " + file.path() : "sorted runs in " + resources.tempDirectory();
        abort();
        if (e instanceof TrinoException trinoException) {
            // the uploader's, with its own error code (no storage node takes the file, ...)
            return trinoException;
        }
        if (e instanceof ArithmeticException) {
            // trino-parquet stores timestamp(9) as INT64 nanoseconds since the epoch
            return new TrinoException(NUMERIC_VALUE_OUT_OF_RANGE, "A value does not fit its Parquet encoding (timestamp(9) values must lie between 1677-09-21 00:12:43.145224192 and 2262-04-11 23:47:16.854775807): " + e.getMessage(), e);
        }
        return new TrinoException(NSC_WRITER_ERROR, "Cannot write %s: %s".formatted(target, e.getMessage()), e);
    }
}
