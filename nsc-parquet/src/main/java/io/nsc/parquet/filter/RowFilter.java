package io.nsc.parquet.filter;

import com.google.common.collect.ImmutableList;
import io.trino.spi.block.Block;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;

import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * A predicate on the channels of decoded pages, evaluated row by row: the storage node's
 * residual filter, and the worker's when it reads raw byte ranges of a table whose predicate
 * the connector enforces. Columns are tested one after another, each only on the rows that
 * passed the ones before, so a selective first column spares decoding work on the others' tests.
 */
public final class RowFilter
{
    private static final RowFilter ALL = new RowFilter(false, ImmutableList.of(), ImmutableList.of());

    private final boolean none;
    private final List<ChannelFilter> filters;
    private final List<RowExpression> expressions;

    private RowFilter(boolean none, List<ChannelFilter> filters, List<RowExpression> expressions)
    {
        this.none = none;
        this.filters = ImmutableList.copyOf(filters);
        this.expressions = ImmutableList.copyOf(expressions);
    }

    public static RowFilter all()
    {
        return ALL;
    }

    /**
     * @param predicate keys are channels of the pages to filter
     */
    public static RowFilter create(TupleDomain<Integer> predicate, List<Type> channelTypes)
    {
        return create(predicate, List.of(), channelTypes);
    }

    /**
     * @param expressions conjuncts no domain expresses, evaluated after the domains; their columns are channels too
     */
    public static RowFilter create(TupleDomain<Integer> predicate, List<RowExpression> expressions, List<Type> channelTypes)
    {
        for (RowExpression expression : expressions) {
            expression.columns().forEach(channel -> checkArgument(channel < channelTypes.size(), "expression on channel %s of %s", channel, channelTypes.size()));
        }
        if (predicate.isNone()) {
            return new RowFilter(true, ImmutableList.of(), ImmutableList.of());
        }
        ImmutableList.Builder<ChannelFilter> filters = ImmutableList.builder();
        for (Map.Entry<Integer, Domain> entry : predicate.getDomains().orElseThrow().entrySet()) {
            int channel = entry.getKey();
            Domain domain = entry.getValue();
            checkArgument(channel >= 0 && channel < channelTypes.size(), "predicate on channel %s of %s", channel, channelTypes.size());
            checkArgument(domain.getType().equals(channelTypes.get(channel)), "domain of type %s on a channel of type %s", domain.getType(), channelTypes.get(channel));
            if (domain.isAll()) {
                continue;
            }
            filters.add(new ChannelFilter(channel, new DictionaryColumnFilter(columnFilter(domain))));
        }
        return new RowFilter(false, filters.build(), expressions);
    }

    private static ColumnFilter columnFilter(Domain domain)
    {
        if (!domain.getValues().isAll() && LongRangesColumnFilter.supports(domain.getType())) {
            return LongRangesColumnFilter.create(domain);
        }
        if (!domain.getValues().isAll() && DoubleRangesColumnFilter.supports(domain.getType())) {
            return DoubleRangesColumnFilter.create(domain);
        }
        if (SliceValuesColumnFilter.supports(domain)) {
            return SliceValuesColumnFilter.create(domain);
        }
        return new DomainColumnFilter(domain);
    }

    public boolean isAll()
    {
        return !none && filters.isEmpty() && expressions.isEmpty();
    }

    public boolean isNone()
    {
        return none;
    }

    /**
     * Writes the positions of the rows that pass into {@code positions}, ascending, and returns
     * how many there are.
     */
    public int select(SourcePage page, int[] positions)
    {
        int count = page.getPositionCount();
        checkArgument(positions.length >= count, "positions array of %s for a page of %s", positions.length, count);
        if (none) {
            return 0;
        }
        for (int position = 0; position < count; position++) {
            positions[position] = position;
        }
        for (ChannelFilter filter : filters) {
            if (count == 0) {
                break;
            }
            count = filter.filter().filter(page.getBlock(filter.channel()), positions, count);
        }
        IntFunction<Block> blocks = page::getBlock;
        for (RowExpression expression : expressions) {
            if (count == 0) {
                break;
            }
            count = expression.filter(blocks, positions, count);
        }
        return count;
    }

    private record ChannelFilter(int channel, ColumnFilter filter) {}
}
