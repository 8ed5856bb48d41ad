package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;
import io.airlift.units.DataSize;
import io.nsc.parquet.FixedRowGroupParquetWriter;
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
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * One Parquet file written page by page to the local disk with trino-parquet's writer, in row
 * groups of the table's {@link RowGroupSize}: exact row counts through
 * {@link FixedRowGroupParquetWriter}, data sizes through {@link ParquetWriter}'s own row-group
 * limit. ZSTD throughout: it decodes fast and is what storage nodes and readers handle best among
 * the codecs Trino writes.
 *
 * <p>Memory is about one row group, and never more than the limit the file is created with: a
 * row group is closed early, before its row count or data size, when its pages (or its encoded
 * data) reach half the limit; the other half is room to encode it.
 */
public abstract sealed class LocalParquetFile
        permits LocalParquetFile.RowCountFile, LocalParquetFile.DataSizeFile
{
    public static final CompressionCodec COMPRESSION = CompressionCodec.ZSTD;
    // Trino's writer records this in created_by; readers key some compatibility decisions on it
    private static final String TRINO_VERSION = "476";

    /** @param rowCount the rows in the file */
    public record Written(Path path, long sizeBytes, long rowCount) {}

    private final Path path;

    private LocalParquetFile(Path path)
    {
        this.path = requireNonNull(path, "path is null");
    }

    /**
     * Starts a file at {@code target}, which must not exist.
     *
     * @param memoryLimitBytes the most the file may hold in memory while it is written
     */
    public static LocalParquetFile create(Path target, ParquetSchema schema, RowGroupSize rowGroupSize, long memoryLimitBytes)
            throws IOException
    {
        requireNonNull(target, "target is null");
        requireNonNull(schema, "schema is null");
        requireNonNull(rowGroupSize, "rowGroupSize is null");
        checkArgument(memoryLimitBytes > 0, "memoryLimitBytes must be positive: %s", memoryLimitBytes);
        long rowGroupMemory = memoryLimitBytes / 2;
        if (rowGroupSize.isRowCount()) {
            return new RowCountFile(target, schema, rowGroupSize.rows(), rowGroupMemory);
        }
        return new DataSizeFile(target, schema, Math.min(rowGroupSize.bytes(), rowGroupMemory));
    }

    /** Writes the pages as one file, holding a whole row group in memory if it must. */
    public static Written write(Path target, ParquetSchema schema, RowGroupSize rowGroupSize, Iterator<Page> pages)
            throws IOException
    {
        LocalParquetFile file = create(target, schema, rowGroupSize, Long.MAX_VALUE);
        try {
            while (pages.hasNext()) {
                file.append(pages.next());
            }
            return file.finish();
        }
        catch (IOException | RuntimeException e) {
            file.abort();
            throw e;
        }
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

    /** Memory the file holds now: the row group being built. */
    public abstract long memoryUsage();

    /** Writes the last row group and the footer. */
    public abstract Written finish()
            throws IOException;

    /** Discards the file; nothing is left on disk. */
    public abstract void abort()
            throws IOException;

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

        private RowCountFile(Path target, ParquetSchema schema, long rowsPerRowGroup, long rowGroupMemoryBytes)
                throws IOException
        {
            super(target);
            this.writer = new FixedRowGroupParquetWriter(target, schema.messageType(), schema.primitiveTypes(), COMPRESSION);
            this.rowsPerRowGroup = rowsPerRowGroup;
            this.rowGroupMemoryBytes = rowGroupMemoryBytes;
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
            return rowGroupPageBytes;
        }

        @Override
        public Written finish()
                throws IOException
        {
            writeRowGroup();
            writer.close();
            return new Written(path(), Files.size(path()), writer.rowCount());
        }

        @Override
        public void abort()
                throws IOException
        {
            rowGroup.clear();
            rowGroupPageBytes = 0;
            rowGroupSizeBytes = 0;
            writer.abort();
        }

        private void writeRowGroup()
                throws IOException
        {
            writer.writeRowGroup(ImmutableList.copyOf(rowGroup));
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
        private final ParquetWriter writer;
        private long rowCount;
        // the writer does not say which rows its written row groups hold: those of the pages
        // appended before the last one during which it wrote a row group, at most
        private long appendedPageBytes;
        private long writtenPageBytes;
        private boolean closed;

        private DataSizeFile(Path target, ParquetSchema schema, long rowGroupBytes)
                throws IOException
        {
            super(target);
            ParquetWriterOptions options = ParquetWriterOptions.builder()
                    .setMaxBlockSize(DataSize.ofBytes(rowGroupBytes))
                    .build();
            this.output = new BufferedOutputStream(Files.newOutputStream(target), 1 << 20);
            this.writer = new ParquetWriter(output, schema.messageType(), schema.primitiveTypes(), options, COMPRESSION, TRINO_VERSION, Optional.empty(), Optional.empty());
        }

        @Override
        public void append(Page page)
                throws IOException
        {
            checkState(!closed, "file %s is closed", path());
            long writtenBefore = writer.getWrittenBytes();
            writer.write(page);
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
            return writer.getRetainedBytes();
        }

        @Override
        public Written finish()
                throws IOException
        {
            checkState(!closed, "file %s is closed", path());
            closed = true;
            try (output) {
                writer.close();
            }
            return new Written(path(), Files.size(path()), rowCount);
        }

        @Override
        public void abort()
                throws IOException
        {
            closed = true;
            try (output) {
                // nothing more to write
            }
            finally {
                Files.deleteIfExists(path());
            }
        }
    }
}
