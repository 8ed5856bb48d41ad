package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;
import io.airlift.log.Logger;
import io.nsc.parquet.stats.ColumnSketches;
import io.airlift.slice.Slice;
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
 * Writes the pages one writer of a CREATE TABLE AS or INSERT receives. Pages are buffered up to
 * the configured size; each full buffer (and the rest at {@link #finish()}) becomes one Parquet
 * file: sorted by the table's {@code sorted_by} columns if it has any, written to a local
 * temporary file, uploaded to the replicas the metadata service chose (another node taking the
 * place of one that fails, see {@link ReplicaUploader}), and deleted locally. The
 * fragments {@link #finish()} returns name the uploaded files; only the coordinator's commit
 * makes them part of the table.
 */
public class NscPageSink
        implements ConnectorPageSink
{
    private static final Logger log = Logger.get(NscPageSink.class);

    // sorted rows are copied out in pages of this many rows, one page at a time
    private static final int SORTED_PAGE_ROWS = 8192;
    // also bounds the sort's address array (8 bytes a row)
    static final long MAX_BUFFERED_ROWS = 1 << 24;

    private final ParquetSchema schema;
    private final List<Type> types;
    private final NscWriterSettings settings;
    private final Optional<RowSorter> sorter;
    private final long bufferLimitBytes;
    private final Path tempDirectory;
    private final String fileNamePrefix;
    private final ReplicaUploader uploader;

    private final List<Page> buffer = new ArrayList<>();
    private long bufferedBytes;
    private long bufferedRows;
    private final List<Slice> fragments = new ArrayList<>();
    private long completedBytes;
    private Path fileInProgress;

    public NscPageSink(
            ParquetSchema schema,
            List<Type> types,
            NscWriterSettings settings,
            Optional<RowSorter> sorter,
            long bufferLimitBytes,
            Path tempDirectory,
            String fileNamePrefix,
            ReplicaUploader uploader)
    {
        this.schema = requireNonNull(schema, "schema is null");
        this.types = ImmutableList.copyOf(types);
        this.settings = requireNonNull(settings, "settings is null");
        this.sorter = requireNonNull(sorter, "sorter is null");
        this.bufferLimitBytes = bufferLimitBytes;
        this.tempDirectory = requireNonNull(tempDirectory, "tempDirectory is null");
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
        buffer.add(page);
        bufferedBytes += page.getRetainedSizeInBytes();
        bufferedRows += page.getPositionCount();
        if (bufferedBytes >= bufferLimitBytes || bufferedRows >= MAX_BUFFERED_ROWS) {
            writeBufferedFile();
        }
        return NOT_BLOCKED;
    }

    @Override
    public CompletableFuture<Collection<Slice>> finish()
    {
        writeBufferedFile();
        return CompletableFuture.completedFuture(ImmutableList.copyOf(fragments));
    }

    /**
     * Drops what is buffered and the local file being written, if any. Files already uploaded
     * stay on the storage nodes: no commit will name them, so the nodes reclaim them as orphans
     * after their timeout, and no query ever sees them.
     */
    @Override
    public void abort()
    {
        buffer.clear();
        bufferedBytes = 0;
        bufferedRows = 0;
        deleteQuietly(fileInProgress);
    }

    /** Bytes written to storage nodes, every replica counted. */
    @Override
    public long getCompletedBytes()
    {
        return completedBytes;
    }

    @Override
    public long getMemoryUsage()
    {
        return bufferedBytes;
    }

    private void writeBufferedFile()
    {
        if (buffer.isEmpty()) {
            return;
        }
        Path file = tempDirectory.resolve(fileNamePrefix + UUID.randomUUID() + ".parquet");
        fileInProgress = file;
        try {
            Files.createDirectories(tempDirectory);
            // the metadata service keeps these next to the file's stats: the table's NDV statistics
            ColumnSketches sketches = ColumnSketches.create(types);
            buffer.forEach(sketches::add);
            Iterator<Page> rows = sorter.map(rowSorter -> rowSorter.sort(buffer, SORTED_PAGE_ROWS)).orElseGet(buffer::iterator);
            Written written = LocalParquetFile.write(file, schema, settings.rowGroupSize(), rows);
            // the buffer is in the file now: release it before the upload, which may take a while
            buffer.clear();
            bufferedBytes = 0;
            bufferedRows = 0;

            NscWriteFragment fragment = uploader.upload(written, settings.replication(), settings.minReplicas()).withColumnSketches(sketches.serialize());
            fragments.add(fragment.toSlice());
            completedBytes += written.sizeBytes() * fragment.replicaNodeIds().size();
        }
        catch (IOException e) {
            throw new TrinoException(NSC_WRITER_ERROR, "Cannot write nsc file %s: %s".formatted(file, e.getMessage()), e);
        }
        catch (ArithmeticException e) {
            // trino-parquet stores timestamp(9) as INT64 nanoseconds since the epoch
            throw new TrinoException(NUMERIC_VALUE_OUT_OF_RANGE, "A value does not fit its Parquet encoding (timestamp(9) values must lie between 1677-09-21 00:12:43.145224192 and 2262-04-11 23:47:16.854775807): " + e.getMessage(), e);
        }
        finally {
            deleteQuietly(file);
            fileInProgress = null;
        }
    }

    private static void deleteQuietly(Path file)
    {
        if (file == null) {
            return;
        }
        try {
            Files.deleteIfExists(file);
        }
        catch (IOException e) {
            log.warn(e, "Cannot delete temporary nsc file %s", file);
        }
    }
}
