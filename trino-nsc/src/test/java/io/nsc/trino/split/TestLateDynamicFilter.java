package io.nsc.trino.split;

import io.airlift.json.JsonCodec;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;
import io.nsc.trino.client.StorageNodeLoad.Load;
import io.nsc.trino.metadata.NscColumnHandle;
import io.nsc.trino.metadata.NscTableHandle;
import io.trino.spi.HostAddress;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static io.airlift.json.JsonCodec.jsonCodec;
import static io.trino.spi.type.BigintType.BIGINT;
import static org.assertj.core.api.Assertions.assertThat;

final class TestLateDynamicFilter
{
    private static final Load IDLE = new Load(0, 0, 16, false);
    private static final NscColumnHandle KEY = new NscColumnHandle("key", BIGINT, 0);
    private static final NscColumnHandle PAYLOAD = new NscColumnHandle("payload", BIGINT, 1);
    private static final NscTableHandle TABLE = NscTableHandle.forTable(new SchemaTableName("s", "t"), 1, 1, List.of(KEY, PAYLOAD), Map.of())
            .withConstraint(TupleDomain.all(), true);
    // two row groups of 1000 rows: keys 0..999 and 1000..1999 (exact), payload 9000 compressed bytes each
    private static final CompactFileStats FILE = CompactFileStats.builder(List.of(KeyKind.EXACT, KeyKind.LOSSY))
            .addRowGroup(1000, 4)
            .addColumnChunk(1000, OptionalLong.of(0), OptionalLong.of(999), 0)
            .addColumnChunk(9000, OptionalLong.empty(), OptionalLong.empty(), 0)
            .addRowGroup(1000, 10_004)
            .addColumnChunk(1000, OptionalLong.of(1000), OptionalLong.of(1999), 0)
            .addColumnChunk(9000, OptionalLong.empty(), OptionalLong.empty(), 0)
            .build();
    private static final NscSplit RAW = new NscSplit("f", 20_000, List.of(1), 1000, 10_000, List.of(HostAddress.fromString("127.0.0.1:1")), ScanMode.RAW);

    @Test
    void testASplitCarriesOnlyItsOwnRowGroupsStatsAndTheyTravel()
    {
        NscSplit split = RAW.withRowGroupStats(FILE, true);
        CompactFileStats own = split.decodedRowGroupStats().orElseThrow();
        assertThat(own.rowGroupCount()).isEqualTo(1);
        assertThat(own.rowGroupRowCount(0)).isEqualTo(1000);
        assertThat(own.min(0, 0)).isEqualTo(1000);
        assertThat(own.max(0, 0)).isEqualTo(1999);
        assertThat(own.compressedSize(0, 1)).isEqualTo(9000);
        assertThat(own.filterCount()).isZero();
        // a few dozen bytes, not the file's stats
        assertThat(split.rowGroupStats().orElseThrow().length()).isLessThan(200);

        JsonCodec<NscSplit> codec = jsonCodec(NscSplit.class);
        assertThat(codec.fromJson(codec.toJson(split))).isEqualTo(split);
        // the mode changes, the stats stay; other row groups would make them wrong, so they go
        assertThat(split.withMode(ScanMode.FILTER).rowGroupStats()).isEqualTo(split.rowGroupStats());
        assertThat(split.withRowGroups(List.of(0), FILE).rowGroupStats()).isEmpty();
        // whether it waits for the filter on the worker travels and stays with the stats
        assertThat(split.awaitsDynamicFilter()).isTrue();
        assertThat(split.withMode(ScanMode.FILTER).awaitsDynamicFilter()).isTrue();
        assertThat(split.withRowGroups(List.of(0), FILE).awaitsDynamicFilter()).isFalse();
        NscSplit notAwaiting = RAW.withRowGroupStats(FILE, false);
        assertThat(codec.fromJson(codec.toJson(notAwaiting))).isEqualTo(notAwaiting);
        assertThat(notAwaiting.awaitsDynamicFilter()).isFalse();
        assertThat(notAwaiting.rowGroupStats()).isEqualTo(split.rowGroupStats());
    }

    @Test
    void testAFilterOnAFewKeysTurnsTheSplitIntoAStorageScan()
    {
        NscSplit split = RAW.withRowGroupStats(FILE, true);
        TupleDomain<NscColumnHandle> fewKeys = TupleDomain.withColumnDomains(Map.of(KEY, Domain.multipleValues(BIGINT, List.of(1005L, 1500L, 1990L))));
        assertThat(LateDynamicFilter.mode(TABLE, split, fewKeys, IDLE)).isEqualTo(ScanMode.FILTER);
        // a filter that keeps every row of the split saves nothing: still raw
        TupleDomain<NscColumnHandle> everything = TupleDomain.withColumnDomains(Map.of(KEY, Domain.create(ValueSet.ofRanges(Range.range(BIGINT, 0L, true, 5000L, true)), false)));
        assertThat(LateDynamicFilter.mode(TABLE, split, everything, IDLE)).isEqualTo(ScanMode.RAW);
        assertThat(LateDynamicFilter.mode(TABLE, split, TupleDomain.all(), IDLE)).isEqualTo(ScanMode.RAW);
        // an empty build side: the engine ends the probe side without reading
        assertThat(LateDynamicFilter.mode(TABLE, split, TupleDomain.none(), IDLE)).isEqualTo(ScanMode.RAW);
        // nothing to estimate from, or not a raw split: as planned
        assertThat(LateDynamicFilter.mode(TABLE, RAW, fewKeys, IDLE)).isEqualTo(ScanMode.RAW);
        assertThat(LateDynamicFilter.mode(TABLE, split.withMode(ScanMode.FILTER), TupleDomain.all(), IDLE)).isEqualTo(ScanMode.FILTER);
    }

    @Test
    void testTheSameRuleAsTheCoordinatorsForABusyNode()
    {
        NscSplit split = RAW.withRowGroupStats(FILE, true);
        // keys 1000..1599: 60% of the rows, so a scan would send about 0.9 of the raw bytes
        TupleDomain<NscColumnHandle> most = TupleDomain.withColumnDomains(Map.of(KEY, Domain.create(ValueSet.ofRanges(Range.range(BIGINT, 1000L, true, 1599L, true)), false)));
        assertThat(LateDynamicFilter.mode(TABLE, split, most, IDLE)).isEqualTo(ScanMode.FILTER);
        assertThat(LateDynamicFilter.mode(TABLE, split, most, new Load(16, 0, 16, false))).isEqualTo(ScanMode.RAW);
        assertThat(LateDynamicFilter.mode(TABLE, split, most, Load.UNKNOWN)).isEqualTo(ScanMode.RAW);
    }
}
