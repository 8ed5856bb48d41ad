package io.nsc.metadata;

import com.google.protobuf.ByteString;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;

import java.util.List;
import java.util.OptionalLong;

/** Compact stats as a storage node would produce them, for files the tests commit. */
public final class TestingStats
{
    private TestingStats() {}

    /** Stats of a one-column file with a single row group of {@code rowCount} rows. */
    public static ByteString compactStats(long rowCount)
    {
        return ByteString.copyFrom(CompactFileStats.builder(List.of(KeyKind.EXACT))
                .addRowGroup(rowCount, 4)
                .addColumnChunk(100, OptionalLong.of(1), OptionalLong.of(rowCount + 1), 0)
                .footer(104, 20)
                .build()
                .encoded());
    }
}
