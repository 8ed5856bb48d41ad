package io.nsc.metadata;

import com.google.protobuf.ByteString;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalLong;

/** Compact stats as a storage node would produce them, for files the tests commit. */
public final class TestingStats
{
    private TestingStats() {}

    /** Stats of a one-column file with a single row group of {@code rowCount} rows. */
    public static ByteString compactStats(long rowCount)
    {
        return compactStatsOfRowGroups(rowCount);
    }

    /** Stats of a one-column file with a row group of each of these row counts, in order. */
    public static ByteString compactStatsOfRowGroups(long... rowGroupRows)
    {
        CompactFileStats.Builder stats = CompactFileStats.builder(List.of(KeyKind.EXACT));
        long offset = 4;
        for (long rows : rowGroupRows) {
            stats.addRowGroup(rows, offset)
                    .addColumnChunk(100, OptionalLong.of(1), OptionalLong.of(rows + 1), 0);
            offset += 100;
        }
        return ByteString.copyFrom(stats.footer(offset, 20).build().encoded());
    }

    /**
     * {@link #compactStats} as releases before packed stats wrote them (version 1: fixed-width
     * fields), which catalogs of those releases still hold.
     */
    public static ByteString fixedWidthCompactStats(long rowCount)
    {
        ByteBuffer encoded = ByteBuffer.allocate(33 + 1 + 16 + 25).order(ByteOrder.LITTLE_ENDIAN)
                .put("NSCS".getBytes(StandardCharsets.US_ASCII))
                .put((byte) 1)
                .putInt(1)
                .putInt(1)
                .putLong(rowCount)
                .putLong(104)
                .putInt(20)
                .put((byte) KeyKind.EXACT.ordinal())
                .putLong(rowCount)
                .putLong(4)
                .putLong(1)
                .putLong(rowCount + 1)
                .putInt(100)
                .putInt(0)
                .put((byte) 1);
        return ByteString.copyFrom(encoded.array());
    }
}
