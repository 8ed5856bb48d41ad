package io.nsc.trino.split;

import com.google.common.collect.ImmutableList;
import io.nsc.trino.metadata.NscColumnHandle;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.Type;

import java.util.List;

import static io.nsc.parquet.types.NativeValues.isSignedLongOrdered;

/**
 * A join's dynamic filter as the connector uses it: the part on table columns, with runs of
 * adjacent integer-like keys as ranges. Trino hands a filter of many keys over as single values
 * even where they leave no gap (a build side of all of {@code part}: the keys 1 to 200,000); as
 * values every estimate, scan request and storage-side test pays per key for what one range says.
 */
public final class DynamicFilterDomains
{
    private DynamicFilterDomains() {}

    public static TupleDomain<NscColumnHandle> ofTableColumns(TupleDomain<ColumnHandle> dynamicFilter)
    {
        return NscColumnHandle.ofTableColumns(dynamicFilter).transformDomains((_, domain) -> mergeAdjacentValues(domain));
    }

    /**
     * The same domain, its single values that follow one another (value + 1) as closed ranges,
     * when that at least halves what it holds; exact for types whose values are signed longs in
     * their order, where no value lies between two adjacent longs.
     */
    static Domain mergeAdjacentValues(Domain domain)
    {
        Type type = domain.getType();
        if (!isSignedLongOrdered(type) || !domain.getValues().isDiscreteSet()) {
            return domain;
        }
        List<Object> values = domain.getValues().getDiscreteSet();
        if (values.size() < 2) {
            return domain;
        }
        // counted before any range is made: the usual join's keys are scattered and stay as they are
        int runs = 1;
        for (int index = 1; index < values.size(); index++) {
            if (!continuesRun(values, index)) {
                runs++;
            }
        }
        if (runs * 2 > values.size()) {
            return domain;
        }
        ImmutableList.Builder<Range> ranges = ImmutableList.builderWithExpectedSize(runs);
        int start = 0;
        for (int index = 1; index <= values.size(); index++) {
            if (index == values.size() || !continuesRun(values, index)) {
                ranges.add(Range.range(type, values.get(start), true, values.get(index - 1), true));
                start = index;
            }
        }
        return Domain.create(ValueSet.ofRanges(ranges.build()), domain.isNullAllowed());
    }

    /** Whether the value at index follows the one before it by exactly one (the values ascend; past Long.MAX_VALUE none does). */
    private static boolean continuesRun(List<Object> values, int index)
    {
        long previous = (long) values.get(index - 1);
        return previous != Long.MAX_VALUE && (long) values.get(index) == previous + 1;
    }
}
