package io.nsc.parquet.aggregate;

import com.google.common.collect.ImmutableList;
import io.nsc.parquet.memory.MemoryBudget;
import io.nsc.parquet.memory.RetainedSizes;
import io.trino.spi.Page;
import io.trino.spi.PageBuilder;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static com.google.common.base.Preconditions.checkArgument;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static java.util.Objects.requireNonNull;

/**
 * Hash aggregation of a scan's rows by group key. A storage node feeds it filtered input pages
 * ({@link #addInput}) and sends {@link #partialPage}: one row per group, the group keys then
 * each aggregate's partial state. The worker that merges feeds those pages ({@link #addPartial})
 * from every storage node and returns {@link #finalPage}: the group keys then each aggregate's
 * result. Without group keys there is exactly one group, even over no rows, as SQL requires.
 * <p>
 * Groups are boxed native values, which suits the small group counts aggregation pushdown is
 * accepted for (the coordinator bounds them from distinct counts). That bound is an estimate,
 * so each new group reserves its size in the memory budget first: a scan with far more groups
 * than expected fails on its own rather than exhausting the node's heap.
 */
public final class GroupedAggregation
{
    private final List<Type> groupTypes;
    private final List<AggregateSpec> aggregates;
    private final Map<List<Object>, Accumulator[]> groups = new LinkedHashMap<>();
    private final MemoryBudget budget;

    public GroupedAggregation(List<Type> groupTypes, List<AggregateSpec> aggregates)
    {
        this(groupTypes, aggregates, MemoryBudget.unlimited());
    }

    /**
     * @param budget where each new group reserves what it retains
     */
    public GroupedAggregation(List<Type> groupTypes, List<AggregateSpec> aggregates, MemoryBudget budget)
    {
        this.groupTypes = ImmutableList.copyOf(groupTypes);
        this.aggregates = ImmutableList.copyOf(aggregates);
        this.budget = requireNonNull(budget, "budget is null");
        groupTypes.forEach(type -> checkArgument(AggregateSpec.isGroupable(type), "cannot group by %s", type));
        if (groupTypes.isEmpty()) {
            groups.put(List.of(), accumulators());
        }
    }

    /** The columns of a partial page: group keys, then each aggregate's state columns. */
    public List<Type> partialTypes()
    {
        ImmutableList.Builder<Type> types = ImmutableList.<Type>builder().addAll(groupTypes);
        aggregates.forEach(aggregate -> types.addAll(aggregate.partialTypes()));
        return types.build();
    }

    /** The columns of the final page: group keys, then each aggregate's result. */
    public List<Type> finalTypes()
    {
        ImmutableList.Builder<Type> types = ImmutableList.<Type>builder().addAll(groupTypes);
        aggregates.forEach(aggregate -> types.add(aggregate.resultType()));
        return types.build();
    }

    public int groupCount()
    {
        return groups.size();
    }

    /**
     * @param groupChannels the page's channel of each group key
     * @param inputChannels the page's channel of each aggregate's input (ignored for COUNT_ALL)
     */
    public void addInput(Page page, int[] groupChannels, int[] inputChannels)
    {
        checkArgument(groupChannels.length == groupTypes.size(), "%s group channels for %s keys", groupChannels.length, groupTypes.size());
        checkArgument(inputChannels.length == aggregates.size(), "%s input channels for %s aggregates", inputChannels.length, aggregates.size());
        Block[] keys = blocks(page, groupChannels);
        Block[] inputs = new Block[aggregates.size()];
        for (int aggregate = 0; aggregate < inputs.length; aggregate++) {
            inputs[aggregate] = aggregates.get(aggregate).kind() == AggregateKind.COUNT_ALL ? null : page.getBlock(inputChannels[aggregate]);
        }
        for (int position = 0; position < page.getPositionCount(); position++) {
            Accumulator[] accumulators = group(keys, position);
            for (int aggregate = 0; aggregate < accumulators.length; aggregate++) {
                accumulators[aggregate].addInput(inputs[aggregate], position);
            }
        }
    }

    /** Merges a page of partial states laid out as {@link #partialTypes()}. */
    public void addPartial(Page page)
    {
        checkArgument(page.getChannelCount() == partialTypes().size(), "partial page of %s channels, expected %s", page.getChannelCount(), partialTypes().size());
        int[] groupChannels = new int[groupTypes.size()];
        Arrays.setAll(groupChannels, channel -> channel);
        Block[] keys = blocks(page, groupChannels);
        Block[] states = new Block[page.getChannelCount()];
        for (int channel = 0; channel < states.length; channel++) {
            states[channel] = page.getBlock(channel);
        }
        for (int position = 0; position < page.getPositionCount(); position++) {
            Accumulator[] accumulators = group(keys, position);
            int first = groupTypes.size();
            for (int aggregate = 0; aggregate < accumulators.length; aggregate++) {
                accumulators[aggregate].addPartial(states, first, position);
                first += aggregates.get(aggregate).partialTypes().size();
            }
        }
    }

    public Page partialPage()
    {
        List<Type> types = partialTypes();
        PageBuilder page = new PageBuilder(groups.size(), types);
        BlockBuilder[] builders = new BlockBuilder[types.size()];
        for (int channel = 0; channel < builders.length; channel++) {
            builders[channel] = page.getBlockBuilder(channel);
        }
        for (Map.Entry<List<Object>, Accumulator[]> group : groups.entrySet()) {
            page.declarePosition();
            writeKeys(page, group.getKey());
            int first = groupTypes.size();
            for (int aggregate = 0; aggregate < aggregates.size(); aggregate++) {
                group.getValue()[aggregate].writePartial(builders, first);
                first += aggregates.get(aggregate).partialTypes().size();
            }
        }
        return page.build();
    }

    public Page finalPage()
    {
        PageBuilder page = new PageBuilder(groups.size(), finalTypes());
        for (Map.Entry<List<Object>, Accumulator[]> group : groups.entrySet()) {
            page.declarePosition();
            writeKeys(page, group.getKey());
            for (int aggregate = 0; aggregate < aggregates.size(); aggregate++) {
                group.getValue()[aggregate].writeFinal(page.getBlockBuilder(groupTypes.size() + aggregate));
            }
        }
        return page.build();
    }

    private void writeKeys(PageBuilder page, List<Object> key)
    {
        for (int channel = 0; channel < groupTypes.size(); channel++) {
            writeNativeValue(groupTypes.get(channel), page.getBlockBuilder(channel), key.get(channel));
        }
    }

    private Accumulator[] group(Block[] keys, int position)
    {
        if (keys.length == 0) {
            return groups.get(List.of());
        }
        List<Object> key = new ArrayList<>(keys.length);
        for (int channel = 0; channel < keys.length; channel++) {
            key.add(readNativeValue(groupTypes.get(channel), keys[channel], position));
        }
        Accumulator[] accumulators = groups.get(key);
        if (accumulators == null) {
            budget.reserve(groupBytes(key), "the groups of an aggregation");
            accumulators = accumulators();
            groups.put(key, accumulators);
        }
        return accumulators;
    }

    /** The key, its map entry and list, and the accumulators (each a small object, a decimal or average a few more). */
    private long groupBytes(List<Object> key)
    {
        return RetainedSizes.MAP_ENTRY + RetainedSizes.values(key.toArray()) + RetainedSizes.OBJECT_HEADER + 4L * aggregates.size() + 48L * aggregates.size();
    }

    private Accumulator[] accumulators()
    {
        return aggregates.stream().map(Accumulator::create).toArray(Accumulator[]::new);
    }

    private static Block[] blocks(Page page, int[] channels)
    {
        Block[] blocks = new Block[channels.length];
        for (int i = 0; i < channels.length; i++) {
            blocks[i] = requireNonNull(page.getBlock(channels[i]), "block is null");
        }
        return blocks;
    }
}
