package io.nsc.trino.split;

import io.nsc.parquet.stats.BloomFilterHashes;
import io.nsc.protocol.predicate.MembershipPredicate;
import io.nsc.protocol.stats.FilterValueType;
import io.nsc.trino.metadata.NscColumnHandle;
import io.trino.spi.predicate.Domain;
import io.trino.spi.type.Type;

import java.util.List;
import java.util.Optional;

/**
 * Turns an equality or IN on a column into the hashes a Parquet writer put into the column's
 * Bloom filters (see {@link BloomFilterHashes}).
 */
public final class BloomFilterValues
{
    /**
     * More values than this are not hashed: checking them costs more per row group than it saves,
     * and such lists are rarely selective.
     */
    static final int MAX_VALUES = 10_000;

    private BloomFilterValues() {}

    /**
     * Whether nsc writes Bloom filters for columns of the type: those whose values it can hash.
     */
    public static boolean supportsBloomFilter(Type type)
    {
        return BloomFilterHashes.valueType(type).isPresent();
    }

    /**
     * Empty unless the domain is a set of at most {@link #MAX_VALUES} values without NULL, of a type
     * whose Parquet encoding is known.
     */
    public static Optional<MembershipPredicate> toMembershipPredicate(NscColumnHandle column, Domain domain)
    {
        Optional<FilterValueType> valueType = BloomFilterHashes.valueType(column.type());
        if (valueType.isEmpty() || domain.isNullAllowed() || domain.getValues().isNone() || !domain.getValues().isDiscreteSet()) {
            return Optional.empty();
        }
        List<Object> values = domain.getValues().getDiscreteSet();
        if (values.size() > MAX_VALUES) {
            return Optional.empty();
        }
        long[] hashes = new long[values.size()];
        for (int i = 0; i < hashes.length; i++) {
            hashes[i] = BloomFilterHashes.hash(valueType.get(), values.get(i));
        }
        return Optional.of(new MembershipPredicate(column.ordinal(), valueType.get(), hashes));
    }
}
