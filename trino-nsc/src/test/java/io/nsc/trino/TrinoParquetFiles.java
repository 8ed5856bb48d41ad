package io.nsc.trino;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.airlift.compress.v3.lz4.Lz4Compressor;
import io.trino.parquet.writer.ParquetSchemaConverter;
import io.trino.parquet.writer.ParquetWriter;
import io.trino.parquet.writer.ParquetWriterOptions;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.BooleanType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.LongTimestamp;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.RealType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TimeType;
import io.trino.spi.type.TimeZoneKey;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TimestampWithTimeZoneType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import io.trino.spi.type.UuidType;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Types;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static io.airlift.slice.Slices.utf8Slice;
import static io.airlift.slice.Slices.wrappedBuffer;
import static io.trino.spi.type.DateTimeEncoding.packDateTimeWithZone;
import static io.trino.spi.type.Timestamps.PICOSECONDS_PER_NANOSECOND;
import static io.trino.spi.type.UuidType.javaUuidToTrinoUuid;
import static java.lang.Float.floatToRawIntBits;
import static java.lang.Math.floorDiv;
import static java.lang.Math.floorMod;
import static java.lang.Math.toIntExact;
import static org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit.MICROS;
import static org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit.MILLIS;
import static org.apache.parquet.schema.LogicalTypeAnnotation.timeType;
import static org.apache.parquet.schema.LogicalTypeAnnotation.timestampType;
import static org.apache.parquet.schema.LogicalTypeAnnotation.uuidType;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT64;

/**
 * Parquet files written by Trino's own writer ({@link ParquetWriter} from trino-parquet), from
 * rows Trino evaluated, for the type tests.
 */
final class TrinoParquetFiles
{
    private static final byte[] MAGIC = {'P', 'A', 'R', '1'};
    private static final int UUID_BYTES = 16;

    private TrinoParquetFiles() {}

    /**
     * Writes one file with a single row group holding every row of {@code rows}.
     *
     * <p>Columns get the Parquet types Trino's connectors declare for them: Trino's Hive mapping
     * ({@link ParquetSchemaConverter}, which nsc-tools' writers use too) for every type it
     * knows, and for the types it refuses (time, timestamp with time zone, uuid) the
     * annotations Trino's Iceberg connector hands the same writer. nsc-tools'
     * {@code FixedRowGroupParquetWriter} would have given several row groups per file, but it
     * only takes the Hive mapping; a file per row group is also what Trino's writers produce
     * for small data.
     */
    static void write(Path target, List<String> names, MaterializedResult rows, CompressionCodec codec)
            throws IOException
    {
        List<Type> types = rows.getTypes();
        checkArgument(names.size() == types.size(), "%s names for %s types", names.size(), types.size());
        ImmutableList.Builder<org.apache.parquet.schema.Type> fields = ImmutableList.builder();
        ImmutableMap.Builder<List<String>, Type> primitiveTypes = ImmutableMap.builder();
        for (int i = 0; i < names.size(); i++) {
            fields.add(parquetType(names.get(i), types.get(i)));
            primitiveTypes.put(List.of(names.get(i)), types.get(i));
        }
        MessageType schema = new MessageType("trino_schema", fields.build());
        try (OutputStream output = Files.newOutputStream(target)) {
            ParquetWriter writer = new ParquetWriter(
                    output,
                    schema,
                    primitiveTypes.buildOrThrow(),
                    ParquetWriterOptions.builder().build(),
                    codec,
                    "476",
                    Optional.empty(),
                    Optional.empty());
            writer.write(toPage(rows));
            writer.close();
        }
    }

    private static org.apache.parquet.schema.Type parquetType(String name, Type type)
    {
        return switch (type) {
            // as Iceberg declares time(6), timestamp(6) with time zone and uuid; the writer's
            // millisecond variant of the latter takes TIMESTAMP(MILLIS, adjusted to UTC)
            case TimeType timeType when timeType.getPrecision() == 6 -> Types.optional(INT64).as(timeType(false, MICROS)).named(name);
            case TimestampWithTimeZoneType timestamp -> Types.optional(INT64).as(timestampType(true, timestamp.getPrecision() <= 3 ? MILLIS : MICROS)).named(name);
            case UuidType _ -> Types.optional(FIXED_LEN_BYTE_ARRAY).length(UUID_BYTES).as(uuidType()).named(name);
            // as the Hive connector declares them (new decimal encoding, INT64 timestamps)
            default -> new ParquetSchemaConverter(List.of(type), List.of(name), false, false).getMessageType().getType(0);
        };
    }

    /** The rows as one page in Trino's native representation of each type. */
    static Page toPage(MaterializedResult rows)
    {
        List<Type> types = rows.getTypes();
        Block[] blocks = new Block[types.size()];
        for (int column = 0; column < types.size(); column++) {
            BlockBuilder builder = types.get(column).createBlockBuilder(null, rows.getRowCount());
            for (MaterializedRow row : rows.getMaterializedRows()) {
                writeValue(types.get(column), builder, row.getField(column));
            }
            blocks[column] = builder.build();
        }
        return new Page(rows.getRowCount(), blocks);
    }

    private static void writeValue(Type type, BlockBuilder builder, Object value)
    {
        if (value == null) {
            builder.appendNull();
            return;
        }
        switch (type) {
            case BooleanType booleanType -> booleanType.writeBoolean(builder, (Boolean) value);
            case TinyintType _, SmallintType _, IntegerType _, BigintType _ -> type.writeLong(builder, ((Number) value).longValue());
            case RealType _ -> type.writeLong(builder, floatToRawIntBits((Float) value));
            case DoubleType _ -> type.writeDouble(builder, (Double) value);
            case DecimalType decimalType -> {
                // setScale without rounding: a value that does not fit fails here, not silently
                BigInteger unscaled = ((BigDecimal) value).setScale(decimalType.getScale()).unscaledValue();
                if (decimalType.isShort()) {
                    type.writeLong(builder, unscaled.longValueExact());
                }
                else {
                    type.writeObject(builder, Int128.valueOf(unscaled));
                }
            }
            case VarcharType _ -> type.writeSlice(builder, utf8Slice((String) value));
            case VarbinaryType _ -> type.writeSlice(builder, wrappedBuffer((byte[]) value));
            case DateType _ -> type.writeLong(builder, ((LocalDate) value).toEpochDay());
            case TimeType _ -> type.writeLong(builder, ((LocalTime) value).toNanoOfDay() * PICOSECONDS_PER_NANOSECOND);
            case TimestampType timestampType -> {
                Instant instant = ((LocalDateTime) value).toInstant(ZoneOffset.UTC);
                long epochMicros = instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1_000;
                if (timestampType.isShort()) {
                    type.writeLong(builder, epochMicros);
                }
                else {
                    type.writeObject(builder, new LongTimestamp(epochMicros, instant.getNano() % 1_000 * PICOSECONDS_PER_NANOSECOND));
                }
            }
            case TimestampWithTimeZoneType timestampType -> {
                ZonedDateTime dateTime = (ZonedDateTime) value;
                TimeZoneKey zone = TimeZoneKey.getTimeZoneKey(dateTime.getZone().getId());
                Instant instant = dateTime.toInstant();
                long epochNanosOfSecond = instant.getNano();
                long epochMillis = instant.getEpochSecond() * 1_000 + floorDiv(epochNanosOfSecond, 1_000_000);
                if (timestampType.isShort()) {
                    type.writeLong(builder, packDateTimeWithZone(epochMillis, zone));
                }
                else {
                    int picosOfMilli = toIntExact((long) floorMod(epochNanosOfSecond, 1_000_000) * PICOSECONDS_PER_NANOSECOND);
                    type.writeObject(builder, LongTimestampWithTimeZone.fromEpochMillisAndFraction(epochMillis, picosOfMilli, zone));
                }
            }
            case UuidType _ -> type.writeSlice(builder, javaUuidToTrinoUuid((UUID) value));
            default -> throw new IllegalArgumentException("no test conversion for " + type);
        }
    }

    /**
     * Copies a file with another {@code created_by} in its footer, data pages untouched.
     */
    static void withCreatedBy(Path source, Path target, String createdBy)
            throws IOException
    {
        byte[] input = Files.readAllBytes(source);
        int footerLength = ByteBuffer.wrap(input, input.length - MAGIC.length - Integer.BYTES, Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).getInt();
        int footerStart = input.length - MAGIC.length - Integer.BYTES - footerLength;
        FileMetaData footer = Util.readFileMetaData(new ByteArrayInputStream(input, footerStart, footerLength));
        footer.setCreated_by(createdBy);
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        output.write(input, 0, footerStart);
        Util.writeFileMetaData(footer, output);
        int newFooterLength = output.size() - footerStart;
        output.write(ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).putInt(newFooterLength).array());
        output.write(MAGIC);
        Files.write(target, output.toByteArray());
    }

    /**
     * Rewrites an uncompressed file with every page compressed as codec LZ4 in Hadoop's block
     * framing, the LZ4 that parquet-mr (Spark, Hive) writes and the only LZ4 Trino 476's reader
     * decodes. Trino's own writer cannot produce it (see the caller), so the pages are Trino's
     * and only their compression is redone; everything else is copied, offsets moved.
     */
    static void recompressWithHadoopLz4(Path source, Path target)
            throws IOException
    {
        byte[] input = Files.readAllBytes(source);
        int footerLength = ByteBuffer.wrap(input, input.length - MAGIC.length - Integer.BYTES, Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).getInt();
        int footerStart = input.length - MAGIC.length - Integer.BYTES - footerLength;
        FileMetaData footer = Util.readFileMetaData(new ByteArrayInputStream(input, footerStart, footerLength));

        ByteArrayOutputStream output = new ByteArrayOutputStream();
        output.write(MAGIC);
        for (RowGroup rowGroup : footer.getRow_groups()) {
            long rowGroupStart = output.size();
            for (ColumnChunk chunk : rowGroup.getColumns()) {
                recompressChunk(input, chunk.getMeta_data(), output);
            }
            rowGroup.setFile_offset(rowGroupStart);
            rowGroup.setTotal_compressed_size(output.size() - rowGroupStart);
        }
        // the pages are no longer the Trino writer's own LZ4 (which the loader refuses by name)
        footer.setCreated_by("nsc test: Trino pages recompressed with Hadoop-framed LZ4");
        int newFooterStart = output.size();
        Util.writeFileMetaData(footer, output);
        int newFooterLength = output.size() - newFooterStart;
        output.write(ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).putInt(newFooterLength).array());
        output.write(MAGIC);
        Files.write(target, output.toByteArray());
    }

    private static void recompressChunk(byte[] input, ColumnMetaData metadata, ByteArrayOutputStream output)
            throws IOException
    {
        checkState(metadata.getCodec() == CompressionCodec.UNCOMPRESSED, "source must be uncompressed, found %s", metadata.getCodec());
        checkState(!metadata.isSetIndex_page_offset() && !metadata.isSetBloom_filter_offset(), "index pages and Bloom filters are not relocated");
        long start = metadata.isSetDictionary_page_offset() ? metadata.getDictionary_page_offset() : metadata.getData_page_offset();
        InputStream pages = new ByteArrayInputStream(input, toIntExact(start), toIntExact(metadata.getTotal_compressed_size()));
        long chunkStart = output.size();
        Long dataPageOffset = null;
        while (pages.available() > 0) {
            long pageStart = output.size();
            PageHeader header = Util.readPageHeader(pages);
            // Trino's writer writes v1 data pages only, whose levels are compressed with the values
            checkState(header.getType() == PageType.DATA_PAGE || header.getType() == PageType.DICTIONARY_PAGE, "unexpected page %s", header.getType());
            byte[] body = pages.readNBytes(header.getCompressed_page_size());
            byte[] framed = hadoopLz4(body);
            header.setCompressed_page_size(framed.length);
            header.unsetCrc();
            if (header.getType() == PageType.DICTIONARY_PAGE) {
                metadata.setDictionary_page_offset(pageStart);
            }
            else if (dataPageOffset == null) {
                dataPageOffset = pageStart;
            }
            Util.writePageHeader(header, output);
            output.write(framed);
        }
        metadata.setData_page_offset(dataPageOffset);
        metadata.setCodec(CompressionCodec.LZ4);
        metadata.setTotal_compressed_size(output.size() - chunkStart);
    }

    /** Hadoop's BlockCompressorStream framing: uncompressed length, then one length-prefixed LZ4 block, big-endian. */
    private static byte[] hadoopLz4(byte[] data)
    {
        Lz4Compressor compressor = Lz4Compressor.create();
        byte[] compressed = new byte[compressor.maxCompressedLength(data.length)];
        int length = compressor.compress(data, 0, data.length, compressed, 0, compressed.length);
        return ByteBuffer.allocate(2 * Integer.BYTES + length)
                .putInt(data.length)
                .putInt(length)
                .put(compressed, 0, length)
                .array();
    }
}
