package io.nsc.protocol.parquet;

import com.google.common.collect.Sets;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.ColumnOrder;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.SchemaElement;
import org.apache.parquet.format.Statistics;
import org.apache.parquet.format.Util;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

import static io.nsc.protocol.parquet.InvalidParquetFileException.invalidFile;
import static java.nio.ByteOrder.LITTLE_ENDIAN;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.file.StandardOpenOption.READ;
import static java.util.Locale.ENGLISH;
import static java.util.Objects.requireNonNull;

/**
 * Reads a Parquet file's footer into what nsc keeps about the file: its columns as Trino types
 * and its {@link CompactFileStats}. It validates what storage later relies on (magic, footer
 * bounds, one flat column per chunk, chunk byte ranges inside the file) and refuses anything
 * else with a message naming the file and the reason.
 */
public final class ParquetFooterParser
{
    /**
     * The codecs trino-parquet 476's reader decodes (ParquetCompressionUtils), LZ4 in Hadoop's
     * framing only. It refuses the others (LZ4_RAW, BROTLI, and any codec Parquet adds later) when
     * it meets their first page; refusing them at load keeps a table readable. nsc-parquet's
     * TestTrinoParquetCodecs holds this list to the reader's.
     */
    public static final Set<CompressionCodec> DECODABLE_CODECS = Sets.immutableEnumSet(
            CompressionCodec.UNCOMPRESSED, CompressionCodec.SNAPPY, CompressionCodec.GZIP, CompressionCodec.LZO, CompressionCodec.LZ4, CompressionCodec.ZSTD);
    private static final String DECODABLE_CODEC_NAMES = "UNCOMPRESSED, SNAPPY, GZIP, LZO, ZSTD and LZ4 in Hadoop's framing";
    private static final String TRINO_WRITER = "parquet-mr-trino";
    /**
     * A file key that marks the LZ4 pages of a file Trino's writer wrote as given Hadoop's framing
     * since (by nsc's loader or TPC-H generator), so that they decode like any other LZ4 pages.
     */
    public static final String HADOOP_LZ4_FRAMING_KEY = "nsc.lz4-framing";
    public static final String HADOOP_LZ4_FRAMING = "hadoop";

    private static final byte[] MAGIC = "PAR1".getBytes(US_ASCII);
    private static final byte[] ENCRYPTED_MAGIC = "PARE".getBytes(US_ASCII);
    // "PAR1", then the footer, then its length (int) and "PAR1" again
    private static final int TRAILER_SIZE = Integer.BYTES + 4;
    private static final int MIN_FILE_SIZE = 4 + TRAILER_SIZE;
    // One read at the end usually covers trailer and footer, sparing a second seek on HDDs.
    private static final int TAIL_READ_SIZE = 64 * 1024;

    private ParquetFooterParser() {}

    /**
     * Parses the footer of a file of {@code fileSize} bytes read through {@code reader}.
     *
     * @param displayName names the file in error messages only
     * @throws InvalidParquetFileException when the file is not Parquet nsc can serve
     * @throws UncheckedIOException when the reader fails
     */
    public static ParquetFileSummary parse(PositionalReader reader, long fileSize, String displayName)
            throws InvalidParquetFileException
    {
        return parse(reader, fileSize, displayName, ParquetLimits.DEFAULT);
    }

    /**
     * Parses the footer within {@code limits}.
     *
     * @throws InvalidParquetFileException when the file is not Parquet nsc can serve, or its footer is over the limits
     * @throws UncheckedIOException when the reader fails
     */
    public static ParquetFileSummary parse(PositionalReader reader, long fileSize, String displayName, ParquetLimits limits)
            throws InvalidParquetFileException
    {
        return parse(reader, fileSize, displayName, limits, false);
    }

    /**
     * Parses the footer, then checks every page header of every column chunk (see
     * {@link PageHeaderValidator}): what a node does before it accepts a file, so that no page
     * a later scan reads can declare more than the limits allow.
     *
     * @throws InvalidParquetFileException when the file is not Parquet nsc can serve, or over the limits
     * @throws UncheckedIOException when the reader fails
     */
    public static ParquetFileSummary parseAndValidatePages(PositionalReader reader, long fileSize, String displayName, ParquetLimits limits)
            throws InvalidParquetFileException
    {
        return parse(reader, fileSize, displayName, limits, true);
    }

    private static ParquetFileSummary parse(PositionalReader reader, long fileSize, String displayName, ParquetLimits limits, boolean validatePages)
            throws InvalidParquetFileException
    {
        requireNonNull(reader, "reader is null");
        requireNonNull(displayName, "displayName is null");
        requireNonNull(limits, "limits is null");
        try {
            Footer footer = readFooter(reader, fileSize, displayName, limits);
            ParquetFileSummary summary = summarize(footer, reader, displayName);
            if (validatePages) {
                new PageHeaderValidator(reader, limits, footer.start(), displayName).validate(footer.metadata());
            }
            return summary;
        }
        catch (IOException e) {
            throw new UncheckedIOException("Failed to read %s: %s".formatted(displayName, e.getMessage()), e);
        }
    }

    /**
     * Parses the footer of a local file; error messages name the file by its file name.
     */
    public static ParquetFileSummary parse(Path file)
            throws InvalidParquetFileException, IOException
    {
        requireNonNull(file, "file is null");
        try (FileChannel channel = FileChannel.open(file, READ)) {
            return parse((position, buffer, offset, length) -> readFully(channel, position, buffer, offset, length), channel.size(), String.valueOf(file.getFileName()));
        }
        catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private static void readFully(FileChannel channel, long position, byte[] buffer, int offset, int length)
            throws IOException
    {
        ByteBuffer target = ByteBuffer.wrap(buffer, offset, length);
        while (target.hasRemaining()) {
            int read = channel.read(target, position + target.position() - offset);
            if (read < 0) {
                throw new EOFException("Unexpected end of file at %s".formatted(position + target.position() - offset));
            }
        }
    }

    /**
     * A footer as Parquet Java decodes it (mutable: a copy of the caller's own), where it starts and
     * its length in bytes.
     */
    public record Footer(FileMetaData metadata, long start, int length) {}

    /**
     * Reads a local file's footer with the checks {@link #parse} makes of a file's framing (magic,
     * footer bounds and size, its Thrift structure) but none of what it describes: for tools that
     * rewrite a file before they parse it.
     */
    public static Footer readFooter(Path file)
            throws InvalidParquetFileException, IOException
    {
        requireNonNull(file, "file is null");
        try (FileChannel channel = FileChannel.open(file, READ)) {
            return readFooter((position, buffer, offset, length) -> readFully(channel, position, buffer, offset, length), channel.size(), String.valueOf(file.getFileName()), ParquetLimits.DEFAULT);
        }
    }

    private static Footer readFooter(PositionalReader reader, long fileSize, String displayName, ParquetLimits limits)
            throws IOException, InvalidParquetFileException
    {
        if (fileSize < MIN_FILE_SIZE) {
            throw invalidFile(displayName, "not a Parquet file: %s bytes is too small (truncated, or not Parquet)".formatted(fileSize));
        }
        int tailSize = (int) Math.min(fileSize, TAIL_READ_SIZE);
        long tailStart = fileSize - tailSize;
        byte[] tail = new byte[tailSize];
        reader.readFully(tailStart, tail, 0, tailSize);

        byte[] trailingMagic = Arrays.copyOfRange(tail, tailSize - 4, tailSize);
        if (Arrays.equals(trailingMagic, ENCRYPTED_MAGIC)) {
            throw invalidFile(displayName, "encrypted Parquet files are not supported");
        }
        if (!Arrays.equals(trailingMagic, MAGIC)) {
            throw invalidFile(displayName, "not a Parquet file: no PAR1 magic at the end (truncated, or not Parquet)");
        }
        byte[] leadingMagic = new byte[4];
        if (tailStart == 0) {
            System.arraycopy(tail, 0, leadingMagic, 0, 4);
        }
        else {
            reader.readFully(0, leadingMagic, 0, 4);
        }
        if (!Arrays.equals(leadingMagic, MAGIC)) {
            throw invalidFile(displayName, "not a Parquet file: no PAR1 magic at the start");
        }

        int footerLength = ByteBuffer.wrap(tail, tailSize - TRAILER_SIZE, Integer.BYTES).order(LITTLE_ENDIAN).getInt();
        long footerStart = fileSize - TRAILER_SIZE - footerLength;
        if (footerLength <= 0 || footerStart < MAGIC.length) {
            throw invalidFile(displayName, "corrupt footer: footer length %s does not fit a file of %s bytes (truncated?)".formatted(footerLength, fileSize));
        }
        if (footerLength > limits.maxFooterBytes()) {
            throw invalidFile(displayName, "footer of %s bytes is larger than the %s bytes allowed".formatted(footerLength, limits.maxFooterBytes()));
        }
        byte[] footer;
        int footerOffset;
        if (footerStart >= tailStart) {
            footer = tail;
            footerOffset = (int) (footerStart - tailStart);
        }
        else {
            footer = new byte[footerLength];
            footerOffset = 0;
            reader.readFully(footerStart, footer, 0, footerLength);
        }
        try {
            // Thrift sizes lists and strings by the counts it reads: only counts the bytes can back reach it
            ThriftCompactChecker.checkStruct(footer, footerOffset, footerOffset + footerLength, limits.maxFooterDecodedBytes());
        }
        catch (ThriftCompactChecker.TruncatedException e) {
            throw invalidFile(displayName, "corrupt footer: its metadata runs past its %s bytes".formatted(footerLength));
        }
        catch (IllegalArgumentException e) {
            throw invalidFile(displayName, "corrupt footer: " + e.getMessage(), e);
        }
        try {
            return new Footer(Util.readFileMetaData(new ByteArrayInputStream(footer, footerOffset, footerLength)), footerStart, footerLength);
        }
        catch (IOException | RuntimeException e) {
            // Thrift reports garbage as IOException (wrapping TException) or as runtime exceptions of the decoder
            throw invalidFile(displayName, "corrupt footer: %s".formatted(e.getMessage()), e);
        }
    }

    private static ParquetFileSummary summarize(Footer footer, PositionalReader reader, String displayName)
            throws InvalidParquetFileException, IOException
    {
        FileMetaData metadata = footer.metadata();
        if (metadata.isSetEncryption_algorithm()) {
            throw invalidFile(displayName, "encrypted columns are not supported");
        }
        List<ParquetColumn> columns = columns(metadata, displayName);
        boolean[] typeDefinedOrder = typeDefinedOrder(metadata, columns.size());

        CompactFileStats.Builder builder = CompactFileStats.builder(columns.stream().map(ParquetColumn::keyKind).toList())
                .footer(footer.start(), footer.length());
        List<RowGroup> rowGroups = metadata.isSetRow_groups() ? metadata.getRow_groups() : List.of();
        String createdBy = metadata.isSetCreated_by() ? metadata.getCreated_by() : "";
        boolean bareLz4Blocks = writesBareLz4Blocks(metadata);
        long rowCount = 0;
        for (int rowGroup = 0; rowGroup < rowGroups.size(); rowGroup++) {
            addRowGroup(builder, rowGroup, rowGroups.get(rowGroup), columns, typeDefinedOrder, footer.start(), bareLz4Blocks, displayName);
            try {
                rowCount = Math.addExact(rowCount, rowGroups.get(rowGroup).getNum_rows());
            }
            catch (ArithmeticException e) {
                throw invalidFile(displayName, "corrupt footer: the row counts of the row groups overflow");
            }
        }
        if (rowCount != metadata.getNum_rows()) {
            throw invalidFile(displayName, "corrupt footer: the row groups hold %s rows but the file claims %s".formatted(rowCount, metadata.getNum_rows()));
        }
        BloomFilterCollector.collect(builder, rowGroups, columns, reader, footer.start());
        return new ParquetFileSummary(columns.stream().map(ParquetColumn::spec).toList(), rowCount, builder.build(), createdBy);
    }

    private static List<ParquetColumn> columns(FileMetaData metadata, String displayName)
            throws InvalidParquetFileException
    {
        List<SchemaElement> schema = metadata.getSchema();
        if (schema == null || schema.isEmpty()) {
            throw invalidFile(displayName, "corrupt footer: no schema");
        }
        SchemaElement root = schema.getFirst();
        int columnCount = root.isSetNum_children() ? root.getNum_children() : 0;
        if (columnCount <= 0) {
            throw invalidFile(displayName, "the file has no columns");
        }
        if (columnCount >= schema.size()) {
            throw invalidFile(displayName, "corrupt footer: the schema root claims %s columns but the schema has %s elements".formatted(columnCount, schema.size()));
        }
        List<ParquetColumn> columns = new ArrayList<>(columnCount);
        Map<String, String> originalNames = new HashMap<>();
        for (int i = 1; i <= columnCount; i++) {
            SchemaElement element = schema.get(i);
            // refuses groups, so no element below has children to skip
            ParquetColumn column = ParquetTypeMapper.map(element, displayName);
            String previous = originalNames.putIfAbsent(column.spec().name(), element.getName());
            if (previous != null) {
                throw invalidFile(displayName, "columns %s and %s have the same name once lower-cased".formatted(previous, element.getName()));
            }
            columns.add(column);
        }
        if (schema.size() != columnCount + 1) {
            throw invalidFile(displayName, "corrupt footer: the schema has %s elements for %s flat columns".formatted(schema.size(), columnCount));
        }
        return columns;
    }

    /**
     * Whether each column's min_value/max_value follow the type-defined order. A column order
     * this reader does not know makes them meaningless; no column orders at all means the
     * writer predates them and its min_value/max_value (if any) use the type-defined order.
     */
    private static boolean[] typeDefinedOrder(FileMetaData metadata, int columnCount)
    {
        boolean[] result = new boolean[columnCount];
        List<ColumnOrder> orders = metadata.isSetColumn_orders() ? metadata.getColumn_orders() : null;
        for (int column = 0; column < columnCount; column++) {
            result[column] = orders == null || orders.size() != columnCount || orders.get(column).isSetTYPE_ORDER();
        }
        return result;
    }

    /**
     * Whether the file's LZ4 pages, if any, are bare LZ4 blocks: Trino's writer writes them so, and
     * Trino's reader decodes LZ4 in Hadoop's framing only, unless nsc has framed them since.
     */
    public static boolean writesBareLz4Blocks(FileMetaData metadata)
    {
        if (!metadata.isSetCreated_by() || !metadata.getCreated_by().startsWith(TRINO_WRITER)) {
            return false;
        }
        return metadata.getKey_value_metadata() == null || metadata.getKey_value_metadata().stream()
                .noneMatch(entry -> entry.getKey().equals(HADOOP_LZ4_FRAMING_KEY) && HADOOP_LZ4_FRAMING.equals(entry.getValue()));
    }

    private static void addRowGroup(CompactFileStats.Builder builder, int index, RowGroup rowGroup, List<ParquetColumn> columns, boolean[] typeDefinedOrder, long dataEnd, boolean bareLz4Blocks, String displayName)
            throws InvalidParquetFileException
    {
        long rowCount = rowGroup.getNum_rows();
        if (rowCount < 0) {
            throw invalidFile(displayName, "corrupt footer: row group %s has %s rows".formatted(index, rowCount));
        }
        List<ColumnChunk> chunks = rowGroup.isSetColumns() ? rowGroup.getColumns() : List.of();
        if (chunks.size() != columns.size()) {
            throw invalidFile(displayName, "corrupt footer: row group %s has %s column chunks for %s columns".formatted(index, chunks.size(), columns.size()));
        }
        List<ColumnMetaData> chunkMetadata = new ArrayList<>(chunks.size());
        long rowGroupOffset = Long.MAX_VALUE;
        for (int column = 0; column < columns.size(); column++) {
            ColumnMetaData metadata = chunkMetadata(chunks.get(column), index, columns.get(column), dataEnd, bareLz4Blocks, displayName);
            chunkMetadata.add(metadata);
            // the smallest chunk start, rather than RowGroup.file_offset, which some writers got wrong (PARQUET-2078)
            if (chunkStart(metadata) > 0) {
                rowGroupOffset = Math.min(rowGroupOffset, chunkStart(metadata));
            }
        }
        if (rowGroupOffset == Long.MAX_VALUE) {
            // only page-less empty chunks: the row group has no bytes of its own
            rowGroupOffset = rowGroup.isSetFile_offset() && rowGroup.getFile_offset() > 0 ? rowGroup.getFile_offset() : MAGIC.length;
        }

        builder.addRowGroup(rowCount, rowGroupOffset);
        for (int column = 0; column < columns.size(); column++) {
            ParquetColumn parquetColumn = columns.get(column);
            ColumnMetaData metadata = chunkMetadata.get(column);
            Statistics statistics = metadata.isSetStatistics() ? metadata.getStatistics() : null;
            MinMax minMax = minMax(parquetColumn, statistics, typeDefinedOrder[column]);
            builder.addColumnChunk(metadata.getTotal_compressed_size(), minMax.min(), minMax.max(), nullCount(statistics, rowCount));
        }
    }

    private static ColumnMetaData chunkMetadata(ColumnChunk chunk, int rowGroup, ParquetColumn column, long dataEnd, boolean bareLz4Blocks, String displayName)
            throws InvalidParquetFileException
    {
        String name = column.spec().name();
        if (chunk.isSetFile_path() && !chunk.getFile_path().isEmpty()) {
            throw invalidFile(displayName, "column %s: column chunks stored in other files are not supported".formatted(name));
        }
        if (!chunk.isSetMeta_data()) {
            if (chunk.isSetCrypto_metadata() || chunk.isSetEncrypted_column_metadata()) {
                throw invalidFile(displayName, "column %s: encrypted columns are not supported".formatted(name));
            }
            throw invalidFile(displayName, "corrupt footer: row group %s column %s has no column metadata".formatted(rowGroup, name));
        }
        ColumnMetaData metadata = chunk.getMeta_data();
        List<String> path = metadata.getPath_in_schema();
        if (path == null || path.size() != 1 || !path.getFirst().toLowerCase(ENGLISH).equals(name)) {
            throw invalidFile(displayName, "corrupt footer: row group %s has a chunk for %s where column %s belongs".formatted(rowGroup, path, name));
        }
        if (metadata.getType() != column.physicalType()) {
            throw invalidFile(displayName, "corrupt footer: row group %s column %s has physical type %s in its chunk but %s in the schema".formatted(rowGroup, name, metadata.getType(), column.physicalType()));
        }
        if (metadata.getCodec() == CompressionCodec.LZ4 && bareLz4Blocks) {
            throw invalidFile(displayName, "column %s: LZ4 pages written by Trino's Parquet writer are not Hadoop-framed, so the Trino 476 Parquet reader nsc serves through cannot decode them; rewrite the file with another codec".formatted(name));
        }
        if (!DECODABLE_CODECS.contains(metadata.getCodec())) {
            throw invalidFile(displayName, "column %s: compression codec %s cannot be decoded by the Trino 476 Parquet reader nsc serves through, which decodes %s; rewrite the file with one of those"
                    .formatted(name, metadata.getCodec(), DECODABLE_CODEC_NAMES));
        }
        long compressedSize = metadata.getTotal_compressed_size();
        if (compressedSize > Integer.MAX_VALUE) {
            throw invalidFile(displayName, "row group %s column %s: compressed size %s exceeds %s bytes, the largest column chunk nsc serves".formatted(rowGroup, name, compressedSize, Integer.MAX_VALUE));
        }
        long start = chunkStart(metadata);
        boolean emptyWithoutPages = compressedSize == 0 && start <= 0;
        if (!emptyWithoutPages && (compressedSize < 0 || start < MAGIC.length || start > dataEnd - compressedSize)) {
            throw invalidFile(displayName, "corrupt footer: row group %s column %s spans [%s, %s + %s), outside the data at [4, %s)".formatted(rowGroup, name, start, start, compressedSize, dataEnd));
        }
        return metadata;
    }

    /**
     * Where the chunk's first page starts. Offset 0 means "no such page" (Arrow writes a data page
     * offset of 0 for the empty chunks of a 0-row row group), as a real page cannot start on the magic.
     */
    public static long chunkStart(ColumnMetaData metadata)
    {
        long start = metadata.getData_page_offset();
        if (metadata.isSetDictionary_page_offset() && metadata.getDictionary_page_offset() > 0
                && (start <= 0 || metadata.getDictionary_page_offset() < start)) {
            start = metadata.getDictionary_page_offset();
        }
        return start;
    }

    private static long nullCount(Statistics statistics, long rowCount)
    {
        if (statistics == null || !statistics.isSetNull_count()) {
            return -1;
        }
        long nullCount = statistics.getNull_count();
        // a count outside the possible range is corrupt: forget it rather than trust it
        return nullCount >= 0 && nullCount <= rowCount ? nullCount : -1;
    }

    private record MinMax(OptionalLong min, OptionalLong max)
    {
        static final MinMax UNKNOWN = new MinMax(OptionalLong.empty(), OptionalLong.empty());
    }

    private static MinMax minMax(ParquetColumn column, Statistics statistics, boolean typeDefinedOrder)
    {
        if (statistics == null || column.keyKind() == KeyKind.NONE) {
            return MinMax.UNKNOWN;
        }
        byte[] min;
        byte[] max;
        if (typeDefinedOrder && statistics.isSetMin_value() && statistics.isSetMax_value()) {
            min = statistics.getMin_value();
            max = statistics.getMax_value();
        }
        else if (column.trustsDeprecatedMinMax() && statistics.isSetMin() && statistics.isSetMax()) {
            min = statistics.getMin();
            max = statistics.getMax();
        }
        else {
            return MinMax.UNKNOWN;
        }
        OptionalLong minKey = column.decoder().decode(min);
        OptionalLong maxKey = column.decoder().decode(max);
        if (minKey.isEmpty() || maxKey.isEmpty() || minKey.getAsLong() > maxKey.getAsLong()) {
            return MinMax.UNKNOWN;
        }
        return new MinMax(minKey, maxKey);
    }
}
