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
        if (runs(values) * 2 > values.size()) {
            return domain;
        }
        ImmutableList.Builder<Range> ranges = ImmutableList.builder();
        int start = 0;
        for (int index = 1; index <= values.size(); index++) {
            if (index == values.size() || (long) values.get(index) != (long) values.get(index - 1) + 1) {
                ranges.add(Range.range(type, values.get(start), true, values.get(index - 1), true));
                start = index;
            }
        }
        return Domain.create(ValueSet.ofRanges(ranges.build()), domain.isNullAllowed());
    }

    /** How many runs of adjacent values the ascending values form. */
    private static int runs(List<Object> values)
    {
        int runs = values.isEmpty() ? 0 : 1;
        for (int index = 1; index < values.size(); index++) {
            // the values ascend: only a difference of exactly one continues a run (Long.MAX_VALUE + 1 would wrap, and ends one)
            long previous = (long) values.get(index - 1);
            if (previous == Long.MAX_VALUE || (long) values.get(index) != previous + 1) {
                runs++;
            }
        }
        return runs;
    }
}
