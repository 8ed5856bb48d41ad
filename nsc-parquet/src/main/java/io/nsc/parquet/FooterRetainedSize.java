package io.nsc.parquet;

import io.trino.parquet.metadata.ParquetMetadata;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Statistics;

import java.util.List;

/**
 * What a parsed Parquet footer takes on the heap, estimated from its shape, for the footer caches
 * of workers and storage nodes: the Thrift objects of its schema, row groups and column chunks
 * (with their paths and min/max bytes), and Trino's parsed schema. Walking the objects' real
 * layout on every cache miss would cost more than reading the footer. The constants are
 * per-object sizes of a 64-bit JVM with compressed references, and the total is raised by a
 * quarter so that it covers what footers of any shape retain; {@code TestFooterRetainedSize}
 * measures that against JOL.
 */
public final class FooterRetainedSize
{
    // ParquetMetadata, Trino's FileMetadata, the Thrift FileMetaData, the schema root and their lists
    private static final long FILE = 4_096;
    // a Thrift SchemaElement and parquet-mr's Type (with its name, ids and logical type) per field
    private static final long SCHEMA_FIELD = 400;
    private static final long ROW_GROUP = 160;
    // ColumnChunk, ColumnMetaData, the encodings list, the path list, boxed offsets
    private static final long COLUMN_CHUNK = 300;
    private static final long STATISTICS = 120;
    private static final long STRING = 48;
    private static final long BUFFER = 64;

    private FooterRetainedSize() {}

    public static long estimate(ParquetMetadata footer)
    {
        FileMetaData metadata = footer.getParquetMetadata();
        long bytes = FILE + SCHEMA_FIELD * metadata.getSchemaSize();
        for (RowGroup rowGroup : metadata.getRow_groups()) {
            bytes += ROW_GROUP;
            for (ColumnChunk chunk : rowGroup.getColumns()) {
                bytes += COLUMN_CHUNK + sizeOf(chunk.getFile_path());
                ColumnMetaData column = chunk.getMeta_data();
                if (column != null) {
                    bytes += sizeOf(column.getPath_in_schema()) + sizeOf(column.getStatistics());
                }
            }
        }
        // the margin: an estimate below what a footer retains would let a cache outgrow its bound
        return bytes + bytes / 4;
    }

    private static long sizeOf(List<String> strings)
    {
        long bytes = 0;
        for (String string : strings) {
            bytes += sizeOf(string);
        }
        return bytes;
    }

    private static long sizeOf(String string)
    {
        return string == null ? 0 : STRING + string.length();
    }

    private static long sizeOf(Statistics statistics)
    {
        if (statistics == null) {
            return 0;
        }
        return STATISTICS
                + (statistics.isSetMin() ? sizeOf(statistics.getMin()) : 0)
                + (statistics.isSetMax() ? sizeOf(statistics.getMax()) : 0)
                + (statistics.isSetMin_value() ? sizeOf(statistics.getMin_value()) : 0)
                + (statistics.isSetMax_value() ? sizeOf(statistics.getMax_value()) : 0);
    }

    private static long sizeOf(byte[] bytes)
    {
        return BUFFER + bytes.length;
    }
}
