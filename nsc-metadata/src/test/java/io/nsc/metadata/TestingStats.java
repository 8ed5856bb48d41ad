package io.nsc.metadata;

import com.google.protobuf.ByteString;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;
import io.nsc.protocol.stats.LegacyEncoding;

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
        return ByteString.copyFrom(LegacyEncoding.encode(CompactFileStats.wrap(compactStats(rowCount).toByteArray())));
    }
}
