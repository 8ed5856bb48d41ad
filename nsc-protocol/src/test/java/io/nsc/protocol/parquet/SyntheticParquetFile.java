package io.nsc.protocol.parquet;

import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.Encoding;
import org.apache.parquet.format.FieldRepetitionType;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.SchemaElement;
import org.apache.parquet.format.Statistics;
import org.apache.parquet.format.Util;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

import static java.nio.charset.StandardCharsets.US_ASCII;

/**
 * Builds Parquet files whose footers say exactly what a test needs (legacy annotations,
 * deprecated statistics, corrupt values) without any real pages: each column chunk is a run of
 * zero bytes. Only the footer parser reads them.
 */
final class SyntheticParquetFile
{
    private static final int CHUNK_BYTES = 10;

    private final List<SchemaElement> columns = new ArrayList<>();
    private final List<Long> rowGroupRows = new ArrayList<>();
    private final List<List<Statistics>> rowGroupStatistics = new ArrayList<>();
    private Consumer<FileMetaData> footerTweak = metadata -> {};

    SyntheticParquetFile column(SchemaElement element)
    {
        if (!element.isSetRepetition_type()) {
            element.setRepetition_type(FieldRepetitionType.OPTIONAL);
        }
        columns.add(element);
        return this;
    }

    /**
     * A row group with one statistics entry per column (null: none).
     */
    SyntheticParquetFile rowGroup(long rows, Statistics... statistics)
    {
        rowGroupRows.add(rows);
        rowGroupStatistics.add(Arrays.asList(statistics));
        return this;
    }

    /**
     * Changes the footer after it is assembled and before it is written.
     */
    SyntheticParquetFile tweak(Consumer<FileMetaData> tweak)
    {
        this.footerTweak = tweak;
        return this;
    }

    byte[] toBytes()
    {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes("PAR1".getBytes(US_ASCII));
        List<RowGroup> rowGroups = new ArrayList<>();
        long totalRows = 0;
        for (int rowGroup = 0; rowGroup < rowGroupRows.size(); rowGroup++) {
            List<ColumnChunk> chunks = new ArrayList<>();
            for (int column = 0; column < columns.size(); column++) {
                SchemaElement element = columns.get(column);
                long offset = out.size();
                out.writeBytes(new byte[CHUNK_BYTES]);
                ColumnMetaData metadata = new ColumnMetaData(element.getType(), List.of(Encoding.PLAIN), List.of(element.getName()), CompressionCodec.UNCOMPRESSED,
                        rowGroupRows.get(rowGroup), CHUNK_BYTES, CHUNK_BYTES, offset);
                Statistics statistics = rowGroupStatistics.get(rowGroup).get(column);
                if (statistics != null) {
                    metadata.setStatistics(statistics);
                }
                chunks.add(new ColumnChunk(offset).setMeta_data(metadata));
            }
            rowGroups.add(new RowGroup(chunks, (long) CHUNK_BYTES * columns.size(), rowGroupRows.get(rowGroup)));
            totalRows += rowGroupRows.get(rowGroup);
        }
        List<SchemaElement> schema = new ArrayList<>();
        schema.add(new SchemaElement("schema").setNum_children(columns.size()));
        schema.addAll(columns);
        FileMetaData metadata = new FileMetaData(1, schema, totalRows, rowGroups).setCreated_by("nsc synthetic");
        footerTweak.accept(metadata);

        ByteArrayOutputStream footer = new ByteArrayOutputStream();
        try {
            Util.writeFileMetaData(metadata, footer);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.writeBytes(footer.toByteArray());
        out.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(footer.size()).array());
        out.writeBytes("PAR1".getBytes(US_ASCII));
        return out.toByteArray();
    }

    static Statistics stats(byte[] min, byte[] max, long nullCount)
    {
        return new Statistics().setMin_value(min).setMax_value(max).setNull_count(nullCount);
    }

    static Statistics deprecatedStats(byte[] min, byte[] max, long nullCount)
    {
        return new Statistics().setMin(min).setMax(max).setNull_count(nullCount);
    }

    static byte[] int32(int value)
    {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(value).array();
    }

    static byte[] int64(long value)
    {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(value).array();
    }

    static byte[] float32(float value)
    {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat(value).array();
    }

    static byte[] float64(double value)
    {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putDouble(value).array();
    }
}
