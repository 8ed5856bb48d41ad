package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;
import io.airlift.units.DataSize;
import io.nsc.parquet.FixedRowGroupParquetWriter;
import io.nsc.parquet.ParquetWriteCodec;
import io.nsc.trino.write.WriteTypes.ParquetSchema;
import io.trino.parquet.writer.ParquetWriter;
import io.trino.parquet.writer.ParquetWriterOptions;
import io.trino.spi.Page;
import org.apache.parquet.format.CompressionCodec;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static io.nsc.parquet.LocalFiles.closeAndDelete;
import static java.lang.Math.clamp;
import static java.lang.Math.toIntExact;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.WRITE;
import static java.util.Objects.requireNonNull;

/**
 * One Parquet file written page by page to the local disk with trino-parquet's writer, in row
 * groups of the table's {@link RowGroupSize}: exact row counts through
 * {@link FixedRowGroupParquetWriter}, data sizes through {@link ParquetWriter}'s own row-group
 * limit, compressed with the table's {@link ParquetWriteCodec}.
 *
 * <p>Memory is about one row group and the file's write buffer (sized from the limit the file is
 * created with, at most 1MB): a row group is closed early, before its row count or data size, when
 * its pages (or its encoded data) reach a quarter of what the buffer leaves; the rest is room to
 * encode it, which takes about twice the pages' size (trino-parquet's column buffers, then the
 * encoded row group). {@link #peakMemoryUsage()} measures what the encoding took.
 */
public abstract sealed class LocalParquetFile
        permits LocalParquetFile.RowCountFile, LocalParquetFile.DataSizeFile
{
    // Trino's writer records this in created_by; readers key some compatibility decisions on it
    private static final String TRINO_VERSION = "476";
    // the write buffer: a sixteenth of the memory, no more than large writes need
    private static final int MIN_OUTPUT_BUFFER_BYTES = 4 * 1024;
    private static final int MAX_OUTPUT_BUFFER_BYTES = 1024 * 1024;
    // a row group's pages take this part of the memory; encoding them takes about twice as much
    private static final int ROW_GROUP_MEMORY_SHARE = 4;

    /**
     * @param rowCount the rows in the file
     */
    public record Written(Path path, long sizeBytes, long rowCount) {}

    private final Path path;
    private long peakMemoryUsage;

    private LocalParquetFile(Path path)
    {
        this.path = requireNonNull(path, "path is null");
    }

    /**
     * Starts a file at {@code target}, which must not exist.
     *
     * @param memoryLimitBytes the most the file may hold in memory while it is written
     */
    public static LocalParquetFile create(Path target, ParquetSchema schema, RowGroupSize rowGroupSize, Set<String> bloomFilterColumns, ParquetWriteCodec compression, long memoryLimitBytes)
            throws IOException
    {
        requireNonNull(bloomFilterColumns, "bloomFilterColumns is null");
        // trino-parquet's writer cuts the row groups of a data size, and writes no filter of a dictionary-encoded chunk
        checkArgument(bloomFilterColumns.isEmpty() || rowGroupSize.isRowCount(), "Bloom filters need row groups of a row count: %s", rowGroupSize);
        requireNonNull(target, "target is null");
        requireNonNull(schema, "schema is null");
        requireNonNull(rowGroupSize, "rowGroupSize is null");
        CompressionCodec codec = compression.parquetCodec();
        checkArgument(memoryLimitBytes >= 2L * MIN_OUTPUT_BUFFER_BYTES, "memoryLimitBytes must be at least %s: %s", 2L * MIN_OUTPUT_BUFFER_BYTES, memoryLimitBytes);
        int outputBufferBytes = toIntExact(clamp(memoryLimitBytes / 16, MIN_OUTPUT_BUFFER_BYTES, MAX_OUTPUT_BUFFER_BYTES));
        long rowGroupMemory = (memoryLimitBytes - outputBufferBytes) / ROW_GROUP_MEMORY_SHARE;
        if (rowGroupSize.isRowCount()) {
            return new RowCountFile(target, schema, codec, rowGroupSize.rows(), rowGroupMemory, outputBufferBytes, bloomFilterColumns);
        }
        return DataSizeFile.create(target, schema, codec, Math.min(rowGroupSize.bytes(), rowGroupMemory), outputBufferBytes);
    }

    public Path path()
    {
        return path;
    }

    /** Appends the page's rows; the file keeps the page until its row group is written. */
    public abstract void append(Page page)
            throws IOException;

    /** Bytes of the row groups written so far (the footer comes with {@link #finish()}). */
    public abstract long writtenBytes();

    /** The in-memory size ({@link Page#getSizeInBytes()}) of the rows appended but not yet in a written row group. */
    public abstract long unwrittenPageBytes();

    /** Memory the file holds now: the row group being built and the write buffer. */
    public abstract long memoryUsage();

    /**
     * The most memory the file held since it was created (or since {@link #resetPeakMemoryUsage()}),
     * the encoding of its row groups included.
     */
    public long peakMemoryUsage()
    {
        return peakMemoryUsage;
    }

    /** Starts measuring {@link #peakMemoryUsage()} anew from what the file holds now. */
    public void resetPeakMemoryUsage()
    {
        peakMemoryUsage = memoryUsage();
    }

    void recordMemoryUsage(long bytes)
    {
        peakMemoryUsage = Math.max(peakMemoryUsage, bytes);
    }

    /** Writes the last row group and the footer. */
    public abstract Written finish()
            throws IOException;

    /** Discards the file, finished or not; nothing is left on disk. */
    public abstract void abort()
            throws IOException;

    /** Deletes the file after {@code failure}, which says what went wrong first. */
    void deleteAfter(Exception failure)
    {
        try {
            Files.deleteIfExists(path);
        }
        catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /** Row groups of an exact row count, but the last of the file and those cut short by the memory limit. */
    static final class RowCountFile
            extends LocalParquetFile
    {
        private final FixedRowGroupParquetWriter writer;
        private final long rowsPerRowGroup;
        private final long rowGroupMemoryBytes;
        // regions of the appended pages: cut where row groups end, nothing is copied
        private final List<Page> rowGroup = new ArrayList<>();
        private long rowGroupRows;
        // the pages the row group's regions keep alive, each counted once
        private long rowGroupPageBytes;
        private long rowGroupSizeBytes;

        private RowCountFile(Path target, ParquetSchema schema, CompressionCodec codec, long rowsPerRowGroup, long rowGroupMemoryBytes, int outputBufferBytes, Set<String> bloomFilterColumns)
                throws IOException
        {
            super(target);
            // the writer deletes what it created if it fails
            this.writer = new FixedRowGroupParquetWriter(target, schema.messageType(), schema.primitiveTypes(), codec, outputBufferBytes, bloomFilterColumns);
            this.rowsPerRowGroup = rowsPerRowGroup;
            this.rowGroupMemoryBytes = rowGroupMemoryBytes;
            recordMemoryUsage(memoryUsage());
        }

        @Override
        public void append(Page page)
                throws IOException
        {
            int offset = 0;
            while (offset < page.getPositionCount()) {
                if (offset == 0 || rowGroup.isEmpty()) {
                    rowGroupPageBytes += page.getRetainedSizeInBytes();
                }
                int length = toIntExact(Math.min(page.getPositionCount() - offset, rowsPerRowGroup - rowGroupRows));
                Page region = page.getRegion(offset, length);
                rowGroup.add(region);
                rowGroupSizeBytes += region.getSizeInBytes();
                rowGroupRows += length;
                offset += length;
                if (rowGroupRows == rowsPerRowGroup || rowGroupPageBytes >= rowGroupMemoryBytes) {
                    writeRowGroup();
                }
            }
            recordMemoryUsage(memoryUsage());
        }

        @Override
        public long writtenBytes()
        {
            return writer.writtenBytes();
        }

        @Override
        public long unwrittenPageBytes()
        {
            return rowGroupSizeBytes;
        }

        @Override
        public long memoryUsage()
        {
            return rowGroupPageBytes + writer.outputBufferBytes();
        }

        @Override
        public Written finish()
                throws IOException
        {
            try {
                writeRowGroup();
                writer.close();
                return new Written(path(), Files.size(path()), writer.rowCount());
            }
            catch (IOException | RuntimeException e) {
                // the writer deleted its temporary file; a file it moved into place goes too
                abortWriter(e);
                deleteAfter(e);
                throw e;
            }
        }

        @Override
        public void abort()
                throws IOException
        {
            rowGroup.clear();
            rowGroupPageBytes = 0;
            rowGroupSizeBytes = 0;
            writer.abort();
            Files.deleteIfExists(path());
        }

        private void abortWriter(Exception failure)
        {
            try {
                writer.abort();
            }
            catch (IOException | RuntimeException e) {
                failure.addSuppressed(e);
            }
        }

        private void writeRowGroup()
                throws IOException
        {
            writer.writeRowGroup(ImmutableList.copyOf(rowGroup));
            // the pages and the largest encoding so far: no less than what this row group took
            recordMemoryUsage(memoryUsage() + writer.peakEncodingBytes());
            rowGroup.clear();
            rowGroupRows = 0;
            rowGroupPageBytes = 0;
            rowGroupSizeBytes = 0;
        }
    }

    /** Row groups closed by trino-parquet's writer once their buffered data reach a size. */
    static final class DataSizeFile
            extends LocalParquetFile
    {
        private final OutputStream output;
        private final int outputBufferBytes;
        private final ParquetWriter writer;
        private long rowCount;
        // the writer does not say which rows its written row groups hold: those of the pages
        // appended before the last one during which it wrote a row group, at most
        private long appendedPageBytes;
        private long writtenPageBytes;
        private boolean closed;

        private DataSizeFile(Path target, OutputStream output, int outputBufferBytes, ParquetWriter writer)
        {
            super(target);
            this.output = requireNonNull(output, "output is null");
            this.outputBufferBytes = outputBufferBytes;
            this.writer = requireNonNull(writer, "writer is null");
            recordMemoryUsage(memoryUsage());
        }

        static DataSizeFile create(Path target, ParquetSchema schema, CompressionCodec codec, long rowGroupBytes, int outputBufferBytes)
                throws IOException
        {
            ParquetWriterOptions options = ParquetWriterOptions.builder()
                    .setMaxBlockSize(DataSize.ofBytes(rowGroupBytes))
                    .build();
            OutputStream output = new BufferedOutputStream(Files.newOutputStream(target, CREATE_NEW, WRITE), outputBufferBytes);
            try {
                ParquetWriter writer = new ParquetWriter(output, schema.messageType(), schema.primitiveTypes(), options, codec, TRINO_VERSION, Optional.empty(), Optional.empty());
                return new DataSizeFile(target, output, outputBufferBytes, writer);
            }
            catch (RuntimeException e) {
                closeAndDelete(output, target, e);
                throw e;
            }
        }

        @Override
        public void append(Page page)
                throws IOException
        {
            checkState(!closed, "file %s is closed", path());
            long writtenBefore = writer.getWrittenBytes();
            writer.write(page);
            // measured between pages: within a page, the writer flushes a row group once its
            // encoded data reach the row-group size (a quarter of the memory at most)
            recordMemoryUsage(memoryUsage());
            rowCount += page.getPositionCount();
            if (writer.getWrittenBytes() > writtenBefore) {
                writtenPageBytes = appendedPageBytes;
            }
            appendedPageBytes += page.getSizeInBytes();
        }

        @Override
        public long writtenBytes()
        {
            return writer.getWrittenBytes();
        }

        @Override
        public long unwrittenPageBytes()
        {
            return appendedPageBytes - writtenPageBytes;
        }

        @Override
        public long memoryUsage()
        {
            return writer.getRetainedBytes() + outputBufferBytes;
        }

        @Override
        public Written finish()
                throws IOException
        {
            checkState(!closed, "file %s is closed", path());
            closed = true;
            try {
                try (output) {
                    writer.close();
                }
                return new Written(path(), Files.size(path()), rowCount);
            }
            catch (IOException | RuntimeException e) {
                deleteAfter(e);
                throw e;
            }
        }

        @Override
        public void abort()
                throws IOException
        {
            closed = true;
            closeAndDelete(output, path());
        }
    }
}
