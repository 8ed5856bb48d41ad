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

import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * Writes rows to one Parquet file on the local disk with trino-parquet's writer, in row groups of
 * the table's {@link RowGroupSize}: exact row counts through {@link FixedRowGroupParquetWriter},
 * data sizes through {@link ParquetWriter}'s own row-group limit. ZSTD throughout: it decodes fast
 * and is what storage nodes and readers handle best among the codecs Trino writes.
 */
public final class LocalParquetFile
{
    public static final CompressionCodec COMPRESSION = CompressionCodec.ZSTD;
    // Trino's writer records this in created_by; readers key some compatibility decisions on it
    private static final String TRINO_VERSION = "476";

    private LocalParquetFile() {}

    /** @param rowCount the rows in the file; every row group but the last has exactly the asked-for count when sized in rows */
    public record Written(Path path, long sizeBytes, long rowCount) {}

    public static Written write(Path target, ParquetSchema schema, RowGroupSize rowGroupSize, Iterator<Page> pages)
            throws IOException
    {
        requireNonNull(target, "target is null");
        requireNonNull(schema, "schema is null");
        requireNonNull(rowGroupSize, "rowGroupSize is null");
        requireNonNull(pages, "pages is null");
        long rows = rowGroupSize.isRowCount() ? writeFixedRowGroups(target, schema, rowGroupSize.rows(), pages) : writeSizedRowGroups(target, schema, rowGroupSize.bytes(), pages);
        return new Written(target, Files.size(target), rows);
    }

    private static long writeFixedRowGroups(Path target, ParquetSchema schema, long rowsPerRowGroup, Iterator<Page> pages)
            throws IOException
    {
        FixedRowGroupParquetWriter writer = new FixedRowGroupParquetWriter(target, schema.messageType(), schema.primitiveTypes(), COMPRESSION);
        try {
            List<Page> rowGroup = new ArrayList<>();
            long rowGroupRows = 0;
            while (pages.hasNext()) {
                Page page = pages.next();
                int offset = 0;
                // cut the page where row groups end; regions share the page's blocks, nothing is copied
                while (offset < page.getPositionCount()) {
                    int length = toIntExact(Math.min(page.getPositionCount() - offset, rowsPerRowGroup - rowGroupRows));
                    rowGroup.add(page.getRegion(offset, length));
                    rowGroupRows += length;
                    offset += length;
                    if (rowGroupRows == rowsPerRowGroup) {
                        writer.writeRowGroup(ImmutableList.copyOf(rowGroup));
                        rowGroup.clear();
                        rowGroupRows = 0;
                    }
                }
            }
            writer.writeRowGroup(ImmutableList.copyOf(rowGroup));
            writer.close();
            return writer.rowCount();
        }
        catch (IOException | RuntimeException e) {
            writer.abort();
            throw e;
        }
    }

    private static long writeSizedRowGroups(Path target, ParquetSchema schema, long rowGroupBytes, Iterator<Page> pages)
            throws IOException
    {
        ParquetWriterOptions options = ParquetWriterOptions.builder()
                .setMaxBlockSize(DataSize.ofBytes(rowGroupBytes))
                .build();
        long rows = 0;
        try (OutputStream output = new BufferedOutputStream(Files.newOutputStream(target), 1 << 20)) {
            ParquetWriter writer = new ParquetWriter(output, schema.messageType(), schema.primitiveTypes(), options, COMPRESSION, TRINO_VERSION, Optional.empty(), Optional.empty());
            while (pages.hasNext()) {
                Page page = pages.next();
                writer.write(page);
                rows += page.getPositionCount();
            }
            writer.close();
        }
        catch (IOException | RuntimeException e) {
            Files.deleteIfExists(target);
            throw e;
        }
        return rows;
    }
}
