package io.nsc.trino.split;

import com.google.common.collect.ImmutableList;
import io.nsc.protocol.predicate.ColumnPredicate;
import io.nsc.protocol.predicate.KeyRange;
import io.nsc.protocol.predicate.MembershipPredicate;
import io.nsc.trino.metadata.NscColumnHandle;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.Type;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Translates the predicate Trino pushed into the table handle into the key ranges the shared
 * pruner understands.
 */
public final class StatsPredicates
{
    private StatsPredicates() {}

    /**
     * @param domain must not be {@link TupleDomain#none()}: a query that cannot match has no splits at all
     */
    public static PruningPredicate toPruningPredicate(TupleDomain<NscColumnHandle> domain)
    {
        Map<NscColumnHandle, Domain> domains = domain.getDomains().orElseThrow(() -> new IllegalArgumentException("domain is none"));
        ImmutableList.Builder<ColumnPredicate> predicates = ImmutableList.builder();
        ImmutableList.Builder<MembershipPredicate> memberships = ImmutableList.builder();
        boolean fullyTranslated = true;
        for (Map.Entry<NscColumnHandle, Domain> entry : domains.entrySet()) {
            Optional<ColumnPredicate> predicate = toColumnPredicate(entry.getKey(), entry.getValue());
            predicate.ifPresent(predicates::add);
            fullyTranslated &= predicate.isPresent();
            BloomFilterValues.toMembershipPredicate(entry.getKey(), entry.getValue()).ifPresent(memberships::add);
        }
        return new PruningPredicate(predicates.build(), fullyTranslated, memberships.build());
    }

    /**
     * Empty when the domain restricts values of a type without stats keys: no key range can then
     * stand for it without risking a wrong "every row matches".
     */
    static Optional<ColumnPredicate> toColumnPredicate(NscColumnHandle column, Domain domain)
    {
        return toKeyRanges(column.type(), domain.getValues())
                .map(ranges -> new ColumnPredicate(column.ordinal(), ranges, domain.isNullAllowed()));
    }

    private static Optional<List<KeyRange>> toKeyRanges(Type type, ValueSet values)
    {
        if (values.isAll()) {
            return Optional.of(List.of(KeyRange.all()));
        }
        if (values.isNone()) {
            return Optional.of(List.of());
        }
        if (!type.isOrderable() || !StatsKeyEncoder.hasKeys(type)) {
            return Optional.empty();
        }
        ImmutableList.Builder<KeyRange> ranges = ImmutableList.builder();
        for (Range range : values.getRanges().getOrderedRanges()) {
            KeyRange keyRange = toKeyRange(type, range);
            if (keyRange == null) {
                return Optional.empty();
            }
            ranges.add(keyRange);
        }
        // Keys are monotone in value, so sorted disjoint value ranges stay sorted over keys; for
        // lossy keys two neighbours may share their boundary key, which the pruner accepts.
        return Optional.of(ranges.build());
    }

    private static KeyRange toKeyRange(Type type, Range range)
    {
        long low = Long.MIN_VALUE;
        boolean lowInclusive = true;
        if (!range.isLowUnbounded()) {
            OptionalLong key = StatsKeyEncoder.keyOf(type, range.getLowBoundedValue());
            if (key.isEmpty()) {
                return null;
            }
            low = key.getAsLong();
            lowInclusive = range.isLowInclusive();
        }
        long high = Long.MAX_VALUE;
        boolean highInclusive = true;
        if (!range.isHighUnbounded()) {
            OptionalLong key = StatsKeyEncoder.keyOf(type, range.getHighBoundedValue());
            if (key.isEmpty()) {
                return null;
            }
            high = key.getAsLong();
            highInclusive = range.isHighInclusive();
        }
        return new KeyRange(low, lowInclusive, range.isLowUnbounded(), high, highInclusive, range.isHighUnbounded());
    }
}
