package io.nsc.parquet.wire;

import com.google.common.collect.ImmutableMap;
import com.google.protobuf.ByteString;
import io.airlift.slice.DynamicSliceOutput;
import io.nsc.protocol.proto.ColumnDomain;
import io.nsc.protocol.proto.ScanPredicate;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.FixedWidthType;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static com.google.common.base.Preconditions.checkArgument;
import static io.nsc.parquet.types.NativeValues.isSignedLongOrdered;
import static io.trino.spi.type.TypeUtils.writeNativeValue;

/**
 * A predicate on the columns of a scan (keys are indexes into the scan's columns) as it
 * crosses the wire: each column's ranges with their bound values in Trino's block encoding, so
 * every type's values travel in the engine's own representation; a set of single integer-like
 * values (an IN list, a join's dynamic filter) as the distances between them ({@link PointDeltas}).
 */
public final class TupleDomainCodec
{
    // the column, the flags, the fields' tags and lengths, the block's encoding name
    private static final int DOMAIN_OVERHEAD_BYTES = 32;
    // a string's length and its bytes, as a guess
    private static final int VARIABLE_WIDTH_VALUE_BYTES = 16;

    private TupleDomainCodec() {}

    public static ScanPredicate encode(TupleDomain<Integer> predicate, List<Type> columnTypes)
    {
        if (predicate.isNone()) {
            return ScanPredicate.newBuilder().setNone(true).build();
        }
        ScanPredicate.Builder result = ScanPredicate.newBuilder();
        for (Map.Entry<Integer, Domain> entry : predicate.getDomains().orElseThrow().entrySet()) {
            int column = entry.getKey();
            checkArgument(column >= 0 && column < columnTypes.size(), "predicate on column %s of a %s-column scan", column, columnTypes.size());
            result.addDomains(encode(column, entry.getValue(), columnTypes.get(column)));
        }
        return result.build();
    }

    /** Decodes a predicate that comes from a trusted place (tests, the connector's own handles). */
    public static TupleDomain<Integer> decode(ScanPredicate predicate, List<Type> columnTypes)
    {
        return decode(predicate, columnTypes, WireValues.unbounded());
    }

    /**
     * @param values reads (and counts) the bound values of the request the predicate is part of
     * @throws IllegalArgumentException when the predicate is malformed or over a limit
     * @throws io.nsc.parquet.memory.MemoryLimitExceededException when its values decode to more than the budget allows
     */
    public static TupleDomain<Integer> decode(ScanPredicate predicate, List<Type> columnTypes, WireValues values)
    {
        if (predicate.getNone()) {
            return TupleDomain.none();
        }
        ImmutableMap.Builder<Integer, Domain> domains = ImmutableMap.builder();
        for (ColumnDomain domain : predicate.getDomainsList()) {
            int column = domain.getColumn();
            checkArgument(column >= 0 && column < columnTypes.size(), "predicate on column %s of a %s-column scan", column, columnTypes.size());
            domains.put(column, decode(domain, columnTypes.get(column), values));
        }
        return TupleDomain.withColumnDomains(domains.buildOrThrow());
    }

    /**
     * About how many bytes {@link #encode} makes of {@code domain}, without encoding it: what a
     * scan request carries for it, to weigh against what the scan saves.
     */
    public static long estimateEncodedBytes(Domain domain)
    {
        ValueSet values = domain.getValues();
        if (values.isAll() || values.isNone()) {
            return DOMAIN_OVERHEAD_BYTES;
        }
        int ranges = values.getRanges().getRangeCount();
        Type type = domain.getType();
        if (sentAsPoints(domain)) {
            Range span = values.getRanges().getSpan();
            // as a double: the span of two signed longs can exceed Long.MAX_VALUE
            double gap = ((double) (Long) span.getHighBoundedValue() - (double) (Long) span.getLowBoundedValue()) / ranges;
            return DOMAIN_OVERHEAD_BYTES + (long) ranges * varintBytes((long) gap);
        }
        int valueBytes = type instanceof FixedWidthType fixedWidth ? fixedWidth.getFixedSize() : VARIABLE_WIDTH_VALUE_BYTES;
        // two bounds, each with its null flag, and two inclusive flags, per range
        return DOMAIN_OVERHEAD_BYTES + (long) ranges * (2L * (valueBytes + 1) + 2);
    }

    /** A set of single values of a type whose values are signed longs travels as {@link PointDeltas}. */
    private static boolean sentAsPoints(Domain domain)
    {
        return isSignedLongOrdered(domain.getType()) && domain.getValues().isDiscreteSet();
    }

    /** Seven bits a byte, at least one byte. */
    private static int varintBytes(long value)
    {
        return Math.max(1, (Long.SIZE - Long.numberOfLeadingZeros(value) + 6) / 7);
    }

    private static ColumnDomain encode(int column, Domain domain, Type type)
    {
        checkArgument(domain.getType().equals(type), "domain of type %s on a column of type %s", domain.getType(), type);
        ColumnDomain.Builder result = ColumnDomain.newBuilder()
                .setColumn(column)
                .setNullAllowed(domain.isNullAllowed());
        ValueSet values = domain.getValues();
        if (values.isAll()) {
            return result.setAllValues(true).build();
        }
        checkArgument(type.isOrderable(), "cannot send a domain of the unorderable type %s", type);
        if (sentAsPoints(domain)) {
            return result.setPointDeltas(PointDeltas.encode(values.getDiscreteSet())).build();
        }
        List<Range> ranges = values.getRanges().getOrderedRanges();
        BlockBuilder bounds = type.createBlockBuilder(null, ranges.size() * 2);
        byte[] inclusive = new byte[ranges.size() * 2];
        for (int i = 0; i < ranges.size(); i++) {
            Range range = ranges.get(i);
            writeNativeValue(type, bounds, range.isLowUnbounded() ? null : range.getLowBoundedValue());
            writeNativeValue(type, bounds, range.isHighUnbounded() ? null : range.getHighBoundedValue());
            inclusive[2 * i] = (byte) (range.isLowInclusive() ? 1 : 0);
            inclusive[2 * i + 1] = (byte) (range.isHighInclusive() ? 1 : 0);
        }
        DynamicSliceOutput output = new DynamicSliceOutput(64);
        new NscBlockEncodingSerde().writeBlock(output, bounds.build());
        return result
                .setBounds(ByteString.copyFrom(output.slice().getBytes()))
                .setInclusive(ByteString.copyFrom(inclusive))
                .build();
    }

    private static Domain decode(ColumnDomain domain, Type type, WireValues values)
    {
        if (domain.getAllValues()) {
            return Domain.create(ValueSet.all(type), domain.getNullAllowed());
        }
        checkArgument(type.isOrderable(), "domain on the unorderable type %s", type);
        if (!domain.getPointDeltas().isEmpty()) {
            checkArgument(isSignedLongOrdered(type), "domain of column %s: point deltas for a column of type %s", domain.getColumn(), type);
            checkArgument(domain.getBounds().isEmpty() && domain.getInclusive().isEmpty(), "domain of column %s: both points and bounds", domain.getColumn());
            return Domain.create(ValueSet.copyOf(type, values.readPointDeltas(type, domain.getPointDeltas())), domain.getNullAllowed());
        }
        if (domain.getBounds().isEmpty()) {
            return Domain.create(ValueSet.none(type), domain.getNullAllowed());
        }
        // the flags first: they must pair with the bounds, and are cheaper to check
        byte[] inclusive = domain.getInclusive().toByteArray();
        values.count(inclusive.length, "the inclusive flags of column %s".formatted(domain.getColumn()));
        List<Object> bounds = values.read(type, domain.getBounds());
        checkArgument(bounds.size() % 2 == 0 && inclusive.length == bounds.size(),
                "domain of column %s: %s bounds with %s inclusive flags", domain.getColumn(), bounds.size(), inclusive.length);
        List<Range> ranges = new ArrayList<>(bounds.size() / 2);
        for (int position = 0; position < bounds.size(); position += 2) {
            ranges.add(range(type, bounds.get(position), inclusive[position] != 0, bounds.get(position + 1), inclusive[position + 1] != 0));
        }
        // no range: only NULL can match (IS NULL), or nothing at all
        return Domain.create(ranges.isEmpty() ? ValueSet.none(type) : ValueSet.ofRanges(ranges), domain.getNullAllowed());
    }

    private static Range range(Type type, Object low, boolean lowInclusive, Object high, boolean highInclusive)
    {
        if (low == null && high == null) {
            return Range.all(type);
        }
        if (low == null) {
            return highInclusive ? Range.lessThanOrEqual(type, high) : Range.lessThan(type, high);
        }
        if (high == null) {
            return lowInclusive ? Range.greaterThanOrEqual(type, low) : Range.greaterThan(type, low);
        }
        return Range.range(type, low, lowInclusive, high, highInclusive);
    }
}
