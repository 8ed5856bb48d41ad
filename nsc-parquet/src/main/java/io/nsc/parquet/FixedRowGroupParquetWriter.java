package io.nsc.parquet;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import io.airlift.slice.DynamicSliceOutput;
import io.airlift.slice.Slice;
import io.airlift.units.DataSize;
import io.nsc.parquet.PageIndexBuilder.PageIndex;
import io.nsc.parquet.stats.BloomFilterHashes;
import io.nsc.parquet.stats.RowGroupBloomFilter;
import io.nsc.protocol.stats.FilterValueType;
import io.trino.parquet.writer.ParquetSchemaConverter;
import io.trino.parquet.writer.ParquetWriter;
import io.trino.parquet.writer.ParquetWriterOptions;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.type.Type;
import org.apache.parquet.format.BloomFilterAlgorithm;
import org.apache.parquet.format.BloomFilterCompression;
import org.apache.parquet.format.BloomFilterHash;
import org.apache.parquet.format.BloomFilterHeader;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnIndex;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.SchemaElement;
import org.apache.parquet.format.SplitBlockAlgorithm;
import org.apache.parquet.format.Uncompressed;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.XxHash;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static com.google.common.base.Verify.verify;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static io.nsc.parquet.LocalFiles.closeAndDelete;
import static io.trino.parquet.writer.ParquetWriter.MAGIC;
import static java.nio.file.StandardCopyOption.ATOMIC_MOVE;
import static java.util.Objects.requireNonNull;
import static org.apache.parquet.schema.Type.Repetition.REPEATED;

/**
 * Writes a Parquet file in which every {@link #writeRowGroup} call becomes exactly one row group.
 *
 * <p>trino-parquet's {@link ParquetWriter} decides row-group boundaries itself, by buffered byte
 * size, and offers no way to cut a row group at a row count. Zone maps are only as useful as the
 * row groups are predictable, so each row group is encoded by a fresh {@code ParquetWriter} into
 * memory, and its column chunks are copied into this file with their offsets moved to where they
 * land. The encoding, statistics and page layout are therefore exactly trino-parquet's; only the
 * footer is assembled here. The inner writer writes no page indexes; when every column is flat,
 * each chunk gets an offset index and, for the types trino-parquet compares page statistics of, a
 * column index (see {@link PageIndexBuilder}), written after its row group so that a range on a
 * sorted column reads the pages it needs rather than whole column chunks.
 *
 * <p>The columns asked for get a Parquet Bloom filter per row group, built here rather than by
 * trino-parquet, which leaves dictionary-encoded chunks without one and sizes every filter for
 * 100,000 values: each filter is sized to its chunk's distinct values (see
 * {@link RowGroupBloomFilter}) and written right after its row group's data.
 *
 * <p>The file is written under a temporary name and moved into place by {@link #close()}, so a
 * crashed run leaves no file that looks complete.
 */
public final class FixedRowGroupParquetWriter
        implements Closeable
{
    // Trino's writer records this in created_by; readers key some compatibility decisions on it
    private static final String TRINO_VERSION = "476";
    // The inner writer must never split a row group on its own; beyond this it would, which only
    // makes row groups smaller than asked, never larger.
    private static final DataSize INNER_MAX_ROW_GROUP_SIZE = DataSize.of(512, MEGABYTE);
    public static final int DEFAULT_OUTPUT_BUFFER_BYTES = 1 << 20;
    // the encoded row group grows from this: a small row group takes little
    private static final int INITIAL_ROW_GROUP_BUFFER_BYTES = 64 * 1024;
    private static final BloomFilterHeader BLOOM_FILTER_HEADER_TEMPLATE = new BloomFilterHeader(
            0,
            BloomFilterAlgorithm.BLOCK(new SplitBlockAlgorithm()),
            BloomFilterHash.XXHASH(new XxHash()),
            BloomFilterCompression.UNCOMPRESSED(new Uncompressed()));

    private record BloomFilterColumn(int index, Type type, FilterValueType valueType) {}

    private final Path target;
    private final Path temporary;
    private final OutputStream output;
    private final MessageType messageType;
    private final Map<List<String>, Type> primitiveTypes;
    private final CompressionCodec compression;
    private final int columnCount;
    private final int outputBufferBytes;
    private final List<BloomFilterColumn> bloomFilterColumns;
    private final List<Type> columnTypes;
    private final List<PrimitiveTypeName> physicalTypes;
    private final boolean writesPageIndexes;
    private final List<RowGroup> rowGroups = new ArrayList<>();

    private long position;
    private long rowCount;
    private long peakEncodingBytes;
    private List<SchemaElement> schema;
    private String createdBy;
    private boolean closed;

    /** Columns get the Parquet types of Trino's Hive mapping ({@link ParquetSchemaConverter}). */
    public FixedRowGroupParquetWriter(Path target, List<String> columnNames, List<Type> columnTypes, CompressionCodec compression)
            throws IOException
    {
        this(target, new ParquetSchemaConverter(checkedTypes(columnNames, columnTypes), columnNames, false, false), compression);
    }

    private FixedRowGroupParquetWriter(Path target, ParquetSchemaConverter schema, CompressionCodec compression)
            throws IOException
    {
        this(target, schema.getMessageType(), schema.getPrimitiveTypes(), compression);
    }

    /**
     * @param messageType the file schema, one field per top-level column
     * @param primitiveTypes the Trino type of each primitive column, by its path in {@code messageType}
     */
    public FixedRowGroupParquetWriter(Path target, MessageType messageType, Map<List<String>, Type> primitiveTypes, CompressionCodec compression)
            throws IOException
    {
        this(target, messageType, primitiveTypes, compression, DEFAULT_OUTPUT_BUFFER_BYTES, ImmutableSet.of());
    }

    /**
     * @param outputBufferBytes the file's write buffer: part of what the writer holds in memory
     * @param bloomFilterColumns the columns that get a Bloom filter per row group, by name
     */
    public FixedRowGroupParquetWriter(Path target, MessageType messageType, Map<List<String>, Type> primitiveTypes, CompressionCodec compression, int outputBufferBytes, Set<String> bloomFilterColumns)
            throws IOException
    {
        this.bloomFilterColumns = bloomFilterColumns(messageType, primitiveTypes, requireNonNull(bloomFilterColumns, "bloomFilterColumns is null"));
        checkArgument(outputBufferBytes > 0, "outputBufferBytes must be positive: %s", outputBufferBytes);
        this.outputBufferBytes = outputBufferBytes;
        this.target = requireNonNull(target, "target is null");
        this.messageType = requireNonNull(messageType, "messageType is null");
        this.primitiveTypes = ImmutableMap.copyOf(requireNonNull(primitiveTypes, "primitiveTypes is null"));
        this.compression = requireNonNull(compression, "compression is null");
        this.columnCount = messageType.getFieldCount();
        // a data page's value count is its row count only in flat columns
        this.writesPageIndexes = messageType.getFields().stream().allMatch(field -> field.isPrimitive() && !field.isRepetition(REPEATED));
        this.columnTypes = writesPageIndexes
                ? messageType.getFields().stream().map(field -> requireNonNull(this.primitiveTypes.get(List.of(field.getName())), () -> "no type for column " + field.getName())).collect(toImmutableList())
                : ImmutableList.of();
        this.physicalTypes = writesPageIndexes
                ? messageType.getFields().stream().map(field -> field.asPrimitiveType().getPrimitiveTypeName()).collect(toImmutableList())
                : ImmutableList.of();

        this.temporary = target.resolveSibling("." + target.getFileName() + ".tmp");
        this.output = new BufferedOutputStream(Files.newOutputStream(temporary), outputBufferBytes);
        try {
            write(MAGIC);
        }
        catch (IOException | RuntimeException e) {
            closed = true;
            closeAndDelete(output, temporary, e);
            throw e;
        }
    }

    private static List<BloomFilterColumn> bloomFilterColumns(MessageType messageType, Map<List<String>, Type> primitiveTypes, Set<String> names)
    {
        ImmutableList.Builder<BloomFilterColumn> columns = ImmutableList.builder();
        for (String name : ImmutableSet.copyOf(names)) {
            checkArgument(messageType.containsField(name), "no column %s for a Bloom filter", name);
            Type type = requireNonNull(primitiveTypes.get(List.of(name)), () -> "no type for column " + name);
            FilterValueType valueType = BloomFilterHashes.valueType(type)
                    .orElseThrow(() -> new IllegalArgumentException("column %s of type %s cannot have a Bloom filter".formatted(name, type)));
            columns.add(new BloomFilterColumn(messageType.getFieldIndex(name), type, valueType));
        }
        return columns.build();
    }

    private static List<Type> checkedTypes(List<String> columnNames, List<Type> columnTypes)
    {
        requireNonNull(columnNames, "columnNames is null");
        requireNonNull(columnTypes, "columnTypes is null");
        checkArgument(columnNames.size() == columnTypes.size(), "columnNames and columnTypes differ in size");
        return columnTypes;
    }

    /** Appends one row group holding exactly the page's rows. */
    public void writeRowGroup(Page page)
            throws IOException
    {
        writeRowGroup(List.of(requireNonNull(page, "page is null")));
    }

    /**
     * Appends one row group holding exactly the rows of all the pages, in order. Lets a caller cut
     * row groups out of pages of any size (with {@link Page#getRegion}) without copying rows.
     */
    public void writeRowGroup(List<Page> pages)
            throws IOException
    {
        requireNonNull(pages, "pages is null");
        checkState(!closed, "writer is closed");
        long rows = 0;
        for (Page page : pages) {
            checkArgument(page.getChannelCount() == columnCount, "page has %s channels, file has %s columns", page.getChannelCount(), columnCount);
            rows += page.getPositionCount();
        }
        if (rows == 0) {
            return;
        }

        DynamicSliceOutput buffer = new DynamicSliceOutput(INITIAL_ROW_GROUP_BUFFER_BYTES);
        ParquetWriter writer = newInnerWriter(buffer);
        for (Page page : pages) {
            writer.write(page);
        }
        // the inner writer's buffers are copied into the encoded row group as it closes: both are held at once
        long encoderBytes = writer.getRetainedBytes();
        writer.close();
        peakEncodingBytes = Math.max(peakEncodingBytes, encoderBytes + buffer.getRetainedSize());
        FileMetaData single = writer.getFileMetaData();

        Slice file = buffer.slice();
        int footerLength = file.getInt(file.length() - MAGIC.length() - Integer.BYTES);
        int dataStart = MAGIC.length();
        int dataEnd = file.length() - MAGIC.length() - Integer.BYTES - footerLength;

        // every offset in the inner file counts from its own start; here the data lands at `position`
        long shift = position - dataStart;
        // a row group past INNER_MAX_ROW_GROUP_SIZE is split by the inner writer: those go without page indexes
        List<PageIndex> pageIndexes = single.getRow_groups().size() == 1
                ? pageIndexes(file, single.getRow_groups().getFirst(), shift, pages)
                : ImmutableList.of();
        for (RowGroup rowGroup : single.getRow_groups()) {
            relocate(rowGroup, shift);
            rowGroups.add(rowGroup);
            rowCount += rowGroup.getNum_rows();
        }
        verify(single.getNum_rows() == rows, "inner writer wrote %s rows for pages of %s", single.getNum_rows(), rows);
        if (schema == null) {
            schema = single.getSchema();
            createdBy = single.getCreated_by();
        }

        file.getBytes(dataStart, output, dataEnd - dataStart);
        position += dataEnd - dataStart;
        writeBloomFilters(rowGroups.getLast(), pages);
        writePageIndexes(rowGroups.getLast(), pageIndexes);
    }

    private List<PageIndex> pageIndexes(Slice encodedFile, RowGroup rowGroup, long shift, List<Page> pages)
    {
        if (!writesPageIndexes) {
            return ImmutableList.of();
        }
        ImmutableList.Builder<PageIndex> indexes = ImmutableList.builder();
        for (int column = 0; column < columnCount; column++) {
            int channel = column;
            List<Block> blocks = pages.stream().map(page -> page.getBlock(channel)).collect(toImmutableList());
            ColumnMetaData chunk = rowGroup.getColumns().get(column).getMeta_data();
            indexes.add(PageIndexBuilder.build(encodedFile, chunk, shift, columnTypes.get(column), physicalTypes.get(column), blocks));
        }
        return indexes.build();
    }

    private void writePageIndexes(RowGroup rowGroup, List<PageIndex> pageIndexes)
            throws IOException
    {
        // column indexes together, then offset indexes: a reader fetches each kind in one range
        for (int column = 0; column < pageIndexes.size(); column++) {
            Optional<ColumnIndex> columnIndex = pageIndexes.get(column).columnIndex();
            if (columnIndex.isPresent()) {
                DynamicSliceOutput encoded = new DynamicSliceOutput(256);
                Util.writeColumnIndex(columnIndex.get(), encoded);
                ColumnChunk chunk = rowGroup.getColumns().get(column);
                chunk.setColumn_index_offset(position);
                chunk.setColumn_index_length(encoded.size());
                write(encoded.slice());
            }
        }
        for (int column = 0; column < pageIndexes.size(); column++) {
            DynamicSliceOutput encoded = new DynamicSliceOutput(256);
            Util.writeOffsetIndex(pageIndexes.get(column).offsetIndex(), encoded);
            ColumnChunk chunk = rowGroup.getColumns().get(column);
            chunk.setOffset_index_offset(position);
            chunk.setOffset_index_length(encoded.size());
            write(encoded.slice());
        }
    }

    private void writeBloomFilters(RowGroup rowGroup, List<Page> pages)
            throws IOException
    {
        for (BloomFilterColumn column : bloomFilterColumns) {
            byte[] bitset = RowGroupBloomFilter.build(column.type(), column.valueType(), pages.stream().map(page -> page.getBlock(column.index())).toList());
            BloomFilterHeader header = BLOOM_FILTER_HEADER_TEMPLATE.deepCopy();
            header.setNumBytes(bitset.length);
            DynamicSliceOutput encoded = new DynamicSliceOutput(64 + bitset.length);
            Util.writeBloomFilterHeader(header, encoded);
            encoded.writeBytes(bitset);
            ColumnMetaData metaData = rowGroup.getColumns().get(column.index()).getMeta_data();
            metaData.setBloom_filter_offset(position);
            metaData.setBloom_filter_length(encoded.size());
            write(encoded.slice());
        }
    }

    public long rowCount()
    {
        return rowCount;
    }

    public int rowGroupCount()
    {
        return rowGroups.size();
    }

    /** The file's write buffer: what the writer holds between row groups. */
    public long outputBufferBytes()
    {
        return outputBufferBytes;
    }

    /**
     * The most memory encoding one row group took besides its pages: the inner writer's column
     * buffers and the encoded row group they are copied into.
     */
    public long peakEncodingBytes()
    {
        return peakEncodingBytes;
    }

    /** Bytes written to the file so far (the footer comes on {@link #close()}). */
    public long writtenBytes()
    {
        return position;
    }

    /** Writes the footer and moves the file to its final name. */
    @Override
    public void close()
            throws IOException
    {
        if (closed) {
            return;
        }
        closed = true;
        try {
            try (output) {
                if (schema == null) {
                    writeEmptyFile();
                }
                else {
                    writeFooter();
                }
            }
            Files.move(temporary, target, ATOMIC_MOVE);
        }
        catch (IOException | RuntimeException e) {
            // a full disk fails the footer's write, a target that cannot be replaced the move: leave nothing behind
            closeAndDelete(output, temporary, e);
            throw e;
        }
    }

    /** Discards what was written; the target is left untouched. */
    public void abort()
            throws IOException
    {
        if (closed) {
            return;
        }
        closed = true;
        closeAndDelete(output, temporary);
    }

    private void writeFooter()
            throws IOException
    {
        FileMetaData fileMetaData = new FileMetaData(1, schema, rowCount, ImmutableList.copyOf(rowGroups));
        fileMetaData.setCreated_by(createdBy);
        DynamicSliceOutput footer = new DynamicSliceOutput(4096);
        Util.writeFileMetaData(fileMetaData, footer);
        Slice footerBytes = footer.slice();
        write(footerBytes);
        writeIntLittleEndian(footerBytes.length());
        write(MAGIC);
    }

    private void writeEmptyFile()
            throws IOException
    {
        // a file without rows: the inner writer's own output is already a complete file (magic
        // included), so replace what the constructor wrote by writing to a fresh buffer
        DynamicSliceOutput buffer = new DynamicSliceOutput(1024);
        ParquetWriter writer = newInnerWriter(buffer);
        writer.close();
        Slice file = buffer.slice();
        // the leading magic is already in the output; the inner file starts with it too
        file.getBytes(MAGIC.length(), output, file.length() - MAGIC.length());
    }

    private ParquetWriter newInnerWriter(OutputStream out)
    {
        ParquetWriterOptions options = ParquetWriterOptions.builder()
                .setMaxBlockSize(INNER_MAX_ROW_GROUP_SIZE)
                .build();
        return new ParquetWriter(out, messageType, primitiveTypes, options, compression, TRINO_VERSION, Optional.empty(), Optional.empty());
    }

    private static void relocate(RowGroup rowGroup, long shift)
    {
        if (rowGroup.isSetFile_offset()) {
            rowGroup.setFile_offset(rowGroup.getFile_offset() + shift);
        }
        for (ColumnChunk chunk : rowGroup.getColumns()) {
            ColumnMetaData metaData = chunk.getMeta_data();
            metaData.setData_page_offset(metaData.getData_page_offset() + shift);
            if (metaData.isSetDictionary_page_offset()) {
                metaData.setDictionary_page_offset(metaData.getDictionary_page_offset() + shift);
            }
            if (metaData.isSetIndex_page_offset()) {
                metaData.setIndex_page_offset(metaData.getIndex_page_offset() + shift);
            }
            verify(!chunk.isSetColumn_index_offset() && !chunk.isSetOffset_index_offset(), "page indexes are not relocated");
            verify(!metaData.isSetBloom_filter_offset(), "Bloom filters are written here, not by the inner writer");
        }
    }

    private void write(Slice bytes)
            throws IOException
    {
        bytes.getBytes(0, output, bytes.length());
        position += bytes.length();
    }

    private void writeIntLittleEndian(int value)
            throws IOException
    {
        output.write(value & 0xFF);
        output.write((value >>> 8) & 0xFF);
        output.write((value >>> 16) & 0xFF);
        output.write((value >>> 24) & 0xFF);
        position += Integer.BYTES;
    }
}
