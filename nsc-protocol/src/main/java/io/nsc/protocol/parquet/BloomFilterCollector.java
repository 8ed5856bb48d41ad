package io.nsc.protocol.parquet;

import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.FilterValueType;
import io.nsc.protocol.stats.SplitBlockBloomFilter;
import org.apache.parquet.format.BloomFilterHeader;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Takes the split-block Bloom filters a writer put into a Parquet file into the file's compact
 * stats, folded to the size the row group's values need (see {@link SplitBlockBloomFilter#fold}).
 * <p>
 * Writers other than nsc's size a filter for the most distinct values they expect (Trino's for
 * 100,000 per chunk), so a filter as written is often many times what its chunk needs; the
 * metadata service and the coordinator hold every filter of a table, so they keep the folded one.
 * <p>
 * What is kept depends on the file's bytes alone, never on a node's settings: every replica's node
 * attests the same compact stats. A filter nsc cannot use (another algorithm, hash or
 * compression, a size out of bounds, a header that does not decode, a value type the coordinator
 * never hashes) is left out; the file is served as without it.
 */
final class BloomFilterCollector
{
    /** A filter that still passes more than this share of absent values prunes too little to keep. */
    static final double MAX_USEFUL_FALSE_POSITIVE_RATE = 0.2;
    /** The largest filter read, as written. Trino's writer writes at most 1MB by default. */
    static final int MAX_FILTER_BYTES = 1024 * 1024;
    /** The most filter bytes kept per file, so a file of many filters cannot fill the stats. */
    static final long MAX_FILE_FILTER_BYTES = 16 * 1024 * 1024;
    // a BloomFilterHeader takes about 15 bytes; the probe leaves room for fields added to it later
    private static final int HEADER_PROBE_BYTES = 64;

    private BloomFilterCollector() {}

    /**
     * Adds the usable filters of the file's chunks to {@code builder}, which holds their row groups.
     *
     * @param dataEnd where the footer starts: filters lie before it
     */
    static void collect(CompactFileStats.Builder builder, List<RowGroup> rowGroups, List<ParquetColumn> columns, PositionalReader reader, long dataEnd)
            throws IOException
    {
        long keptBytes = 0;
        for (int rowGroup = 0; rowGroup < rowGroups.size(); rowGroup++) {
            List<ColumnChunk> chunks = rowGroups.get(rowGroup).getColumns();
            for (int column = 0; column < columns.size(); column++) {
                ColumnMetaData metadata = chunks.get(column).getMeta_data();
                Optional<FilterValueType> valueType = valueType(columns.get(column));
                if (valueType.isEmpty() || !metadata.isSetBloom_filter_offset()) {
                    continue;
                }
                Optional<byte[]> filter = read(reader, metadata.getBloom_filter_offset(), dataEnd);
                if (filter.isEmpty()) {
                    continue;
                }
                byte[] folded = SplitBlockBloomFilter.fold(filter.get(), SplitBlockBloomFilter.TARGET_FALSE_POSITIVE_RATE);
                if (SplitBlockBloomFilter.falsePositiveRate(folded) > MAX_USEFUL_FALSE_POSITIVE_RATE || keptBytes + folded.length > MAX_FILE_FILTER_BYTES) {
                    continue;
                }
                keptBytes += folded.length;
                builder.addFilter(rowGroup, column, valueType.get(), folded);
            }
        }
    }

    /**
     * The value types the coordinator hashes; float and double are left out since SQL equality
     * and the bits Parquet hashes disagree on them (0.0 and -0.0, NaN).
     */
    private static Optional<FilterValueType> valueType(ParquetColumn column)
    {
        return switch (column.physicalType()) {
            case INT32 -> Optional.of(FilterValueType.INT32);
            case INT64 -> Optional.of(FilterValueType.INT64);
            case BYTE_ARRAY -> Optional.of(FilterValueType.BYTE_ARRAY);
            default -> Optional.empty();
        };
    }

    private static Optional<byte[]> read(PositionalReader reader, long offset, long dataEnd)
            throws IOException
    {
        if (offset < 4 || offset >= dataEnd) {
            return Optional.empty();
        }
        byte[] probe = new byte[(int) Math.min(HEADER_PROBE_BYTES, dataEnd - offset)];
        reader.readFully(offset, probe, 0, probe.length);
        int headerLength;
        BloomFilterHeader header;
        try {
            headerLength = ThriftCompactChecker.checkStruct(probe, 0, probe.length, HEADER_PROBE_BYTES * ParquetLimits.FOOTER_EXPANSION);
            header = Util.readBloomFilterHeader(new ByteArrayInputStream(probe, 0, headerLength));
        }
        catch (ThriftCompactChecker.TruncatedException | IOException | RuntimeException e) {
            // Thrift reports garbage as IOException or as runtime exceptions of its decoder
            return Optional.empty();
        }
        if (!header.isSetAlgorithm() || !header.getAlgorithm().isSetBLOCK()
                || !header.isSetHash() || !header.getHash().isSetXXHASH()
                || !header.isSetCompression() || !header.getCompression().isSetUNCOMPRESSED()) {
            return Optional.empty();
        }
        int length = header.getNumBytes();
        if (!SplitBlockBloomFilter.isValidLength(length) || length > MAX_FILTER_BYTES || offset + headerLength + length > dataEnd) {
            return Optional.empty();
        }
        byte[] bitset = new byte[length];
        reader.readFully(offset + headerLength, bitset, 0, length);
        return Optional.of(bitset);
    }
}
