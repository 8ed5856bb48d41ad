package io.nsc.parquet.wire;

import com.google.protobuf.ByteString;
import io.airlift.slice.DynamicSliceOutput;
import io.nsc.parquet.filter.RowExpression;
import io.nsc.parquet.memory.MemoryBudget;
import io.nsc.parquet.memory.MemoryLimitExceededException;
import io.nsc.protocol.proto.ColumnDomain;
import io.nsc.protocol.proto.ScanExpression;
import io.nsc.protocol.proto.ScanExpressions;
import io.nsc.protocol.proto.ScanIn;
import io.nsc.protocol.proto.ScanLike;
import io.nsc.protocol.proto.ScanPredicate;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;
import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.LongStream;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The limits a storage node decodes a scan request's predicate and filters under. */
final class TestRequestLimits
{
    private static final List<Type> TYPES = List.of(BIGINT, VARCHAR);
    private static final RequestLimits LIMITS = new RequestLimits(100, 10, 10_000);

    @Test
    void testDepthIsBoundedOnTheWayDown()
    {
        assertThat(decode(nested(10))).isInstanceOf(RowExpression.Not.class);
        assertThatThrownBy(() -> decode(nested(11)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nested deeper than 10");
    }

    @Test
    void testNodesAreCountedOverAllOfARequestsFilters()
    {
        ScanExpression wide = ScanExpression.newBuilder()
                .setOr(ScanExpressions.newBuilder().addAllTerms(Collections.nCopies(100, isNull())))
                .build();
        assertThatThrownBy(() -> decode(wide))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("more than 100 nodes");
        RowExpressionCodec.Decoder decoder = RowExpressionCodec.decoder(TYPES::get, LIMITS, new WireValues(LIMITS.maxValueBytes(), MemoryBudget.unlimited()));
        ScanExpression half = ScanExpression.newBuilder()
                .setAnd(ScanExpressions.newBuilder().addAllTerms(Collections.nCopies(49, isNull())))
                .build();
        decoder.decode(half);
        decoder.decode(half);
        assertThatThrownBy(() -> decoder.decode(half)).hasMessageContaining("more than 100 nodes");
    }

    @Test
    void testValueBytesAreCountedOverPredicateAndFilters()
    {
        RowExpression in = new RowExpression.In(0, BIGINT, LongStream.range(0, 1000).boxed().map(Object.class::cast).toList());
        WireValues values = new WireValues(LIMITS.maxValueBytes(), MemoryBudget.unlimited());
        RowExpressionCodec.Decoder decoder = RowExpressionCodec.decoder(TYPES::get, LIMITS, values);
        decoder.decode(RowExpressionCodec.encode(in));
        assertThatThrownBy(() -> decoder.decode(RowExpressionCodec.encode(in)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exceed 10000 bytes");
        // LIKE patterns count too
        ScanExpression like = ScanExpression.newBuilder().setLike(ScanLike.newBuilder().setColumn(1).setPattern("%".repeat(20_000))).build();
        assertThatThrownBy(() -> decode(like)).hasMessageContaining("exceed 10000 bytes");
        // 20,000 adjacent keys travel as a byte each
        ScanPredicate predicate = TupleDomainCodec.encode(TupleDomain.withColumnDomains(Map.of(0, Domain.multipleValues(BIGINT, LongStream.range(0, 20_000).boxed().toList()))), TYPES);
        assertThatThrownBy(() -> TupleDomainCodec.decode(predicate, TYPES, new WireValues(LIMITS.maxValueBytes(), MemoryBudget.unlimited())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exceed 10000 bytes");
    }

    @Test
    void testValueClaimingManyPositionsIsRefused()
    {
        // 30 bytes that claim 200M longs
        DynamicSliceOutput output = new DynamicSliceOutput(32);
        output.writeInt(10);
        output.writeBytes("LONG_ARRAY".getBytes(US_ASCII));
        output.writeInt(200_000_000);
        output.writeBoolean(false);
        output.writeLong(1);
        ByteString bytes = ByteString.copyFrom(output.slice().getBytes());
        assertThat(bytes.size()).isLessThanOrEqualTo(30);
        ScanExpression in = ScanExpression.newBuilder().setIn(ScanIn.newBuilder().setColumn(0).setValues(bytes)).build();
        assertThatThrownBy(() -> decode(in))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated block");
        ScanPredicate predicate = ScanPredicate.newBuilder()
                .addDomains(ColumnDomain.newBuilder().setColumn(0).setBounds(bytes).setInclusive(ByteString.copyFrom(new byte[2])))
                .build();
        assertThatThrownBy(() -> TupleDomainCodec.decode(predicate, TYPES, new WireValues(LIMITS.maxValueBytes(), MemoryBudget.unlimited())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated block");
    }

    @Test
    void testDecodedValuesAreChargedToTheBudget()
    {
        ScanPredicate predicate = TupleDomainCodec.encode(TupleDomain.withColumnDomains(Map.of(0, Domain.multipleValues(BIGINT, LongStream.range(0, 1000).boxed().toList()))), TYPES);
        MemoryBudget budget = new MemoryBudget("Scan of file f", 50_000);
        assertThatThrownBy(() -> TupleDomainCodec.decode(predicate, TYPES, new WireValues(1 << 20, budget)))
                .isInstanceOf(MemoryLimitExceededException.class)
                .hasMessageContaining("Scan of file f exceeds its memory limit");
        MemoryBudget enough = new MemoryBudget("Scan of file f", 1 << 20);
        assertThat(TupleDomainCodec.decode(predicate, TYPES, new WireValues(1 << 20, enough)).getDomains().orElseThrow()).hasSize(1);
        assertThat(enough.reservedBytes()).isPositive();
    }

    @Test
    void testMalformedExpressionsAreRefused()
    {
        assertThatThrownBy(() -> decode(ScanExpression.getDefaultInstance())).hasMessageContaining("empty expression");
        assertThatThrownBy(() -> decode(ScanExpression.newBuilder().setIsNull(5).build())).hasMessageContaining("unknown column 5");
        assertThatThrownBy(() -> decode(ScanExpression.newBuilder().setIsNull(-1).build())).hasMessageContaining("negative column");
        assertThatThrownBy(() -> decode(ScanExpression.newBuilder().setLike(ScanLike.newBuilder().setColumn(0).setPattern("a")).build()))
                .hasMessageContaining("LIKE on a column of type bigint");
        assertThatThrownBy(() -> decode(ScanExpression.newBuilder().setLike(ScanLike.newBuilder().setColumn(1).setPattern("a!").setEscape("!")).build()))
                .isInstanceOf(IllegalArgumentException.class);
        // the values of another type than the column's
        RowExpression varcharIn = new RowExpression.In(1, VARCHAR, List.of(io.airlift.slice.Slices.utf8Slice("x")));
        ScanExpression mismatched = ScanExpression.newBuilder().setIn(RowExpressionCodec.encode(varcharIn).getIn().toBuilder().setColumn(0)).build();
        assertThatThrownBy(() -> decode(mismatched)).hasMessageContaining("for a column of type bigint");
        assertThat(decode(RowExpressionCodec.encode(RowExpression.Like.create(1, "a%", Optional.empty())))).isInstanceOf(RowExpression.Like.class);
    }

    private static RowExpression decode(ScanExpression expression)
    {
        return RowExpressionCodec.decoder(TYPES::get, LIMITS, new WireValues(LIMITS.maxValueBytes(), MemoryBudget.unlimited())).decode(expression);
    }

    private static ScanExpression nested(int depth)
    {
        ScanExpression expression = isNull();
        for (int i = 1; i < depth; i++) {
            expression = ScanExpression.newBuilder().setNot(expression).build();
        }
        return expression;
    }

    private static ScanExpression isNull()
    {
        return ScanExpression.newBuilder().setIsNull(0).build();
    }
}
