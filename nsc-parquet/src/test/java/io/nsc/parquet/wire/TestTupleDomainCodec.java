package io.nsc.parquet.wire;

import com.google.protobuf.ByteString;
import io.nsc.protocol.proto.ColumnDomain;
import io.nsc.protocol.proto.ScanPredicate;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.Type;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TimestampType.TIMESTAMP_MICROS;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A scan's predicate across the wire: what the connector sends is what the storage node evaluates. */
final class TestTupleDomainCodec
{
    @Test
    void testSetsOfIntegerLikeValuesRoundTripAsPoints()
    {
        assertRoundTrip(BIGINT, Domain.multipleValues(BIGINT, List.of(Long.MIN_VALUE, -1L, 0L, 1L, Long.MAX_VALUE)));
        assertRoundTrip(BIGINT, Domain.singleValue(BIGINT, -42L));
        assertRoundTrip(INTEGER, Domain.create(ValueSet.of(INTEGER, (long) Integer.MIN_VALUE, 7L, (long) Integer.MAX_VALUE), true));
        assertRoundTrip(SMALLINT, Domain.multipleValues(SMALLINT, List.of((long) Short.MIN_VALUE, (long) Short.MAX_VALUE)));
        assertRoundTrip(TINYINT, Domain.multipleValues(TINYINT, List.of(-128L, 127L)));
        assertRoundTrip(DATE, Domain.multipleValues(DATE, List.of(-719_162L, 9_000L, 9_001L)));
        assertRoundTrip(createDecimalType(12, 2), Domain.multipleValues(createDecimalType(12, 2), List.of(-99L, 100L)));
        assertRoundTrip(TIMESTAMP_MICROS, Domain.multipleValues(TIMESTAMP_MICROS, List.of(-1L, 1_700_000_000_000_000L)));
        for (Type type : List.of(BIGINT, INTEGER, DATE)) {
            assertThat(encode(type, Domain.singleValue(type, 3L)).getPointDeltas().isEmpty()).isFalse();
        }
    }

    @Test
    void testRangesAndOtherTypesKeepTheirBounds()
    {
        Domain ranges = Domain.create(ValueSet.ofRanges(Range.lessThan(BIGINT, -5L), Range.equal(BIGINT, 0L), Range.range(BIGINT, 10L, false, 20L, true)), true);
        assertRoundTrip(BIGINT, ranges);
        assertThat(encode(BIGINT, ranges).getPointDeltas().isEmpty()).isTrue();
        Domain strings = Domain.multipleValues(VARCHAR, List.of(utf8Slice("a"), utf8Slice("b")));
        assertRoundTrip(VARCHAR, strings);
        assertThat(encode(VARCHAR, strings).getPointDeltas().isEmpty()).isTrue();
        // real's native long is its int bits: not ordered as a long
        Domain reals = Domain.multipleValues(REAL, List.of((long) Float.floatToIntBits(-1f), (long) Float.floatToIntBits(2f)));
        assertRoundTrip(REAL, reals);
        assertThat(encode(REAL, reals).getPointDeltas().isEmpty()).isTrue();
        assertRoundTrip(BIGINT, Domain.onlyNull(BIGINT));
        assertRoundTrip(BIGINT, Domain.notNull(BIGINT));
    }

    @Test
    void testJoinKeysCostAboutAByteEach()
    {
        // a dynamic filter of a third of 200,000 keys, as a join of TPC-H's part with lineitem builds it
        List<Long> keys = LongStream.range(0, 75_000).map(i -> 1 + i * 8 / 3).boxed().toList();
        Domain domain = Domain.multipleValues(BIGINT, keys);
        assertThat(encode(BIGINT, domain).getSerializedSize()).isLessThan(80_000);
        assertRoundTrip(BIGINT, domain);
    }

    @Test
    void testEstimatedSizeIsCloseToTheEncodedOne()
    {
        List<Long> nearKeys = LongStream.range(0, 75_000).map(i -> 1 + i * 8 / 3).boxed().toList();
        List<Long> farKeys = LongStream.range(0, 10_000).map(i -> i * 1_000_003).boxed().toList();
        List<Range> ranges = LongStream.range(0, 1_000).mapToObj(i -> Range.range(BIGINT, i * 10, true, i * 10 + 5, false)).toList();
        assertEstimateCloseToEncoding(BIGINT, Domain.multipleValues(BIGINT, nearKeys));
        assertEstimateCloseToEncoding(BIGINT, Domain.multipleValues(BIGINT, farKeys));
        assertEstimateCloseToEncoding(DATE, Domain.multipleValues(DATE, nearKeys));
        assertEstimateCloseToEncoding(BIGINT, Domain.create(ValueSet.ofRanges(ranges), false));
        assertEstimateCloseToEncoding(VARCHAR, Domain.multipleValues(VARCHAR, LongStream.range(0, 1_000).mapToObj(i -> utf8Slice("customer#" + (100_000 + i))).toList()));
    }

    private static void assertEstimateCloseToEncoding(Type type, Domain domain)
    {
        long encoded = encode(type, domain).getSerializedSize();
        assertThat(TupleDomainCodec.estimateEncodedBytes(domain)).isBetween(encoded / 2, encoded * 2);
    }

    @Test
    void testMalformedPointsAreRefused()
    {
        List<Type> types = List.of(BIGINT, INTEGER, VARCHAR);
        // 5, then a distance of 0
        assertThatThrownBy(() -> decode(types, 0, new byte[] {10, 0})).hasMessageContaining("not above the one before");
        // Long.MAX_VALUE, then a distance of 1
        assertThatThrownBy(() -> decode(types, 0, bytes(encode(BIGINT, Domain.singleValue(BIGINT, Long.MAX_VALUE)).getPointDeltas(), new byte[] {1})))
                .hasMessageContaining("not above the one before");
        // a varint whose last byte is missing
        assertThatThrownBy(() -> decode(types, 0, new byte[] {2, (byte) 0x80})).hasMessageContaining("cut short");
        assertThatThrownBy(() -> decode(types, 0, new byte[] {
                (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x7F}))
                .hasMessageContaining("exceeds 64 bits");
        // 2^31 on an integer column
        assertThatThrownBy(() -> decode(types, 1, bytes(encode(BIGINT, Domain.singleValue(BIGINT, 1L << 31)).getPointDeltas())))
                .hasMessageContaining("outside");
        assertThatThrownBy(() -> decode(types, 2, new byte[] {2})).hasMessageContaining("point deltas for a column of type varchar");
        ScanPredicate both = ScanPredicate.newBuilder()
                .addDomains(ColumnDomain.newBuilder().setColumn(0).setPointDeltas(ByteString.copyFrom(new byte[] {2})).setInclusive(ByteString.copyFrom(new byte[2])))
                .build();
        assertThatThrownBy(() -> TupleDomainCodec.decode(both, types)).hasMessageContaining("both points and bounds");
    }

    private static void assertRoundTrip(Type type, Domain domain)
    {
        TupleDomain<Integer> predicate = TupleDomain.withColumnDomains(Map.of(0, domain));
        assertThat(TupleDomainCodec.decode(TupleDomainCodec.encode(predicate, List.of(type)), List.of(type))).isEqualTo(predicate);
    }

    private static ColumnDomain encode(Type type, Domain domain)
    {
        return TupleDomainCodec.encode(TupleDomain.withColumnDomains(Map.of(0, domain)), List.of(type)).getDomains(0);
    }

    private static TupleDomain<Integer> decode(List<Type> types, int column, byte[] pointDeltas)
    {
        ScanPredicate predicate = ScanPredicate.newBuilder()
                .addDomains(ColumnDomain.newBuilder().setColumn(column).setPointDeltas(ByteString.copyFrom(pointDeltas)))
                .build();
        return TupleDomainCodec.decode(predicate, types);
    }

    private static byte[] bytes(ByteString first, byte[] rest)
    {
        return first.concat(ByteString.copyFrom(rest)).toByteArray();
    }

    private static byte[] bytes(ByteString encoded)
    {
        return encoded.toByteArray();
    }
}
