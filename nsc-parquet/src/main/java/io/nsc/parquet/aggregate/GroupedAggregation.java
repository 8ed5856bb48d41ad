package io.nsc.parquet.aggregate;

import com.google.common.collect.ImmutableList;
import io.nsc.parquet.memory.MemoryBudget;
import io.nsc.parquet.memory.RetainedSizes;
import io.trino.spi.Page;
import io.trino.spi.PageBuilder;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.DictionaryBlock;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
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
 * so each new group reserves its size in the memory budget first, and the groups may be given a
 * limit of their own: {@link #addInput(Page, int[], int[], int)} stops before a row that would
 * need a new group past it, so that a storage node can send the partial states it holds
 * ({@link #takePartialPage}) and go on with empty groups. Partial states of the same group sent
 * twice merge like those of two files, so the result is the same, with more rows sent.
 */
public final class GroupedAggregation
{
    private final List<Type> groupTypes;
    private final List<AggregateSpec> aggregates;
    private final Map<List<Object>, Accumulator[]> groups = new LinkedHashMap<>();
    // the same groups by packed keys, for pages whose keys pack (null when the key types never do)
    private final PackedGroupKeys packedKeys;
    private Accumulator[][] rowGroups = new Accumulator[0][];
    private final MemoryBudget budget;
    private final long groupLimitBytes;
    // what the groups held now reserved in the budget
    private long groupBytes;

    public GroupedAggregation(List<Type> groupTypes, List<AggregateSpec> aggregates)
    {
        this(groupTypes, aggregates, MemoryBudget.unlimited());
    }

    /**
     * @param budget where each new group reserves what it retains
     */
    public GroupedAggregation(List<Type> groupTypes, List<AggregateSpec> aggregates, MemoryBudget budget)
    {
        this(groupTypes, aggregates, budget, Long.MAX_VALUE);
    }

    /**
     * @param budget where each new group reserves what it retains
     * @param groupLimitBytes the most the groups may retain before {@link #addInput(Page, int[], int[], int)}
     * stops for their partial states to be taken (one group always fits)
     */
    public GroupedAggregation(List<Type> groupTypes, List<AggregateSpec> aggregates, MemoryBudget budget, long groupLimitBytes)
    {
        this.groupTypes = ImmutableList.copyOf(groupTypes);
        this.aggregates = ImmutableList.copyOf(aggregates);
        this.budget = requireNonNull(budget, "budget is null");
        checkArgument(groupLimitBytes > 0, "groupLimitBytes must be positive");
        this.groupLimitBytes = groupLimitBytes;
        groupTypes.forEach(type -> checkArgument(AggregateSpec.isGroupable(type), "cannot group by %s", type));
        this.packedKeys = PackedGroupKeys.supports(groupTypes) ? new PackedGroupKeys(groupTypes) : null;
        if (groupTypes.isEmpty()) {
            // one row even over no input, as SQL requires
            newGroup(List.of());
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

    /** What the groups held now retain, as reserved in the budget. */
    public long retainedBytes()
    {
        return groupBytes;
    }

    /**
     * Adds every row of the page; without a group limit of its own, past the budget it fails.
     *
     * @param groupChannels the page's channel of each group key
     * @param inputChannels the page's channel of each aggregate's input (ignored for COUNT_ALL)
     * @throws io.nsc.parquet.memory.MemoryLimitExceededException when the groups pass the budget
     */
    public void addInput(Page page, int[] groupChannels, int[] inputChannels)
    {
        int end = addInput(page, groupChannels, inputChannels, 0);
        checkState(end == page.getPositionCount(), "the groups reached their limit of %s bytes", groupLimitBytes);
    }

    /**
     * Adds the page's rows from {@code start} on, until a row would need a new group that takes
     * the groups past their limit.
     *
     * @return the position of the first row not added: the page's position count when all were
     */
    public int addInput(Page page, int[] groupChannels, int[] inputChannels, int start)
    {
        checkArgument(groupChannels.length == groupTypes.size(), "%s group channels for %s keys", groupChannels.length, groupTypes.size());
        checkArgument(inputChannels.length == aggregates.size(), "%s input channels for %s aggregates", inputChannels.length, aggregates.size());
        checkArgument(start >= 0 && start <= page.getPositionCount(), "start %s outside a page of %s rows", start, page.getPositionCount());
        Block[] keys = blocks(page, groupChannels);
        Block[] inputs = new Block[aggregates.size()];
        for (int aggregate = 0; aggregate < inputs.length; aggregate++) {
            inputs[aggregate] = aggregates.get(aggregate).kind() == AggregateKind.COUNT_ALL ? null : page.getBlock(inputChannels[aggregate]);
        }
        // rows with the same dictionary ids have the same key: it is looked up once per page
        DictionaryCodes codes = DictionaryCodes.of(keys);
        if (codes.count() == 1 && start < page.getPositionCount()) {
            // one group for every row (no keys, or constant ones): each aggregate takes the rows at once
            Accumulator[] accumulators = groupWithin(keys, start);
            if (accumulators == null) {
                return start;
            }
            for (int aggregate = 0; aggregate < accumulators.length; aggregate++) {
                accumulators[aggregate].addInputs(inputs[aggregate], start, page.getPositionCount());
            }
            return page.getPositionCount();
        }
        if (codes.dictionaries() != null) {
            return addDictionaryInput(page.getPositionCount(), codes, keys, inputs, start);
        }
        if (packedKeys != null && packedKeys.pack(keys, page.getPositionCount())) {
            return addPackedInput(page.getPositionCount(), keys, inputs, start);
        }
        // keys that neither dictionary ids nor packing cover: boxed, a row at a time
        for (int position = start; position < page.getPositionCount(); position++) {
            Accumulator[] accumulators = groupWithin(keys, position);
            if (accumulators == null) {
                return position;
            }
            for (int aggregate = 0; aggregate < accumulators.length; aggregate++) {
                accumulators[aggregate].addInput(inputs[aggregate], position);
            }
        }
        return page.getPositionCount();
    }

    /** Rows whose keys are dictionary ids: a group looked up once per code, then each aggregate's inputs added in one pass. */
    private int addDictionaryInput(int positionCount, DictionaryCodes codes, Block[] keys, Block[] inputs, int start)
    {
        Accumulator[][] byCode = new Accumulator[codes.count()][];
        Accumulator[][] rowGroups = rowGroups(positionCount);
        int end = positionCount;
        for (int position = start; position < positionCount; position++) {
            int code = codes.code(position);
            Accumulator[] accumulators = byCode[code];
            if (accumulators == null) {
                accumulators = groupWithin(keys, position);
                if (accumulators == null) {
                    end = position;
                    break;
                }
                byCode[code] = accumulators;
            }
            rowGroups[position] = accumulators;
        }
        addGroupedInputs(inputs, start, end);
        return end;
    }

    /**
     * Rows whose keys {@link PackedGroupKeys} packed: each row's group found in its primitive
     * table (the boxed map only for a group it has not seen), then each aggregate's inputs added
     * in one pass over the rows.
     */
    private int addPackedInput(int positionCount, Block[] keys, Block[] inputs, int start)
    {
        Accumulator[][] rowGroups = rowGroups(positionCount);
        int end = positionCount;
        for (int position = start; position < positionCount; position++) {
            Accumulator[] accumulators = packedKeys.find(position);
            if (accumulators == null) {
                accumulators = groupWithin(keys, position);
                if (accumulators == null) {
                    end = position;
                    break;
                }
                packedKeys.put(position, accumulators);
            }
            rowGroups[position] = accumulators;
        }
        addGroupedInputs(inputs, start, end);
        return end;
    }

    private Accumulator[][] rowGroups(int positionCount)
    {
        if (rowGroups.length < positionCount) {
            rowGroups = new Accumulator[positionCount][];
        }
        return rowGroups;
    }

    /** Each aggregate over rows {@code [start, end)}, whose groups are in {@link #rowGroups}, in row order. */
    private void addGroupedInputs(Block[] inputs, int start, int end)
    {
        if (end > start) {
            for (int aggregate = 0; aggregate < inputs.length; aggregate++) {
                rowGroups[start][aggregate].addGroupedInputs(inputs[aggregate], rowGroups, aggregate, start, end);
            }
        }
        // no page's groups held past it
        Arrays.fill(rowGroups, start, end, null);
    }

    /**
     * A code per row from the dictionary ids of the key blocks (one code for no keys, or keys that
     * are run-length blocks), when their dictionaries are small; -1 for every row otherwise.
     */
    private record DictionaryCodes(DictionaryBlock[] dictionaries, int[] strides, int count)
    {
        private static final int MAX_CODES = 1 << 16;
        private static final DictionaryCodes NONE = new DictionaryCodes(null, null, 0);

        static DictionaryCodes of(Block[] keys)
        {
            DictionaryBlock[] dictionaries = new DictionaryBlock[keys.length];
            int[] strides = new int[keys.length];
            long count = 1;
            for (int i = 0; i < keys.length; i++) {
                strides[i] = (int) count;
                switch (keys[i]) {
                    case RunLengthEncodedBlock _ -> {}
                    case DictionaryBlock dictionary -> {
                        dictionaries[i] = dictionary;
                        count *= dictionary.getDictionary().getPositionCount();
                    }
                    default -> {
                        return NONE;
                    }
                }
                if (count > MAX_CODES) {
                    return NONE;
                }
            }
            return new DictionaryCodes(dictionaries, strides, (int) count);
        }

        int code(int position)
        {
            if (dictionaries == null) {
                return -1;
            }
            int code = 0;
            for (int i = 0; i < dictionaries.length; i++) {
                if (dictionaries[i] != null) {
                    code += dictionaries[i].getId(position) * strides[i];
                }
            }
            return code;
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
            Accumulator[] accumulators = group(key(keys, position));
            int first = groupTypes.size();
            for (int aggregate = 0; aggregate < accumulators.length; aggregate++) {
                accumulators[aggregate].addPartial(states, first, position);
                first += aggregates.get(aggregate).partialTypes().size();
            }
        }
    }

    /** The partial state of every group, which stay held. */
    public Page partialPage()
    {
        PageBuilder page = new PageBuilder(groups.size(), partialTypes());
        BlockBuilder[] builders = builders(page);
        groups.entrySet().forEach(group -> writePartial(page, builders, group));
        return page.build();
    }

    /**
     * Removes up to {@code maxGroups} groups, the oldest first, and returns their partial states,
     * giving back what they reserved. Once no group is left, more input starts new groups (for a
     * global aggregation, its one group anew).
     */
    public Page takePartialPage(int maxGroups)
    {
        checkArgument(maxGroups > 0, "maxGroups must be positive");
        PageBuilder page = new PageBuilder(Math.min(maxGroups, groups.size()), partialTypes());
        BlockBuilder[] builders = builders(page);
        Iterator<Map.Entry<List<Object>, Accumulator[]>> iterator = groups.entrySet().iterator();
        for (int taken = 0; taken < maxGroups && iterator.hasNext(); taken++) {
            Map.Entry<List<Object>, Accumulator[]> group = iterator.next();
            writePartial(page, builders, group);
            iterator.remove();
            if (packedKeys != null) {
                packedKeys.clear();
            }
            long bytes = groupBytes(group.getKey());
            groupBytes -= bytes;
            budget.release(bytes);
        }
        return page.build();
    }

    private BlockBuilder[] builders(PageBuilder page)
    {
        BlockBuilder[] builders = new BlockBuilder[partialTypes().size()];
        Arrays.setAll(builders, page::getBlockBuilder);
        return builders;
    }

    private void writePartial(PageBuilder page, BlockBuilder[] builders, Map.Entry<List<Object>, Accumulator[]> group)
    {
        page.declarePosition();
        writeKeys(page, group.getKey());
        int first = groupTypes.size();
        for (int aggregate = 0; aggregate < aggregates.size(); aggregate++) {
            group.getValue()[aggregate].writePartial(builders, first);
            first += aggregates.get(aggregate).partialTypes().size();
        }
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

    private List<Object> key(Block[] keys, int position)
    {
        if (keys.length == 0) {
            return List.of();
        }
        List<Object> key = new ArrayList<>(keys.length);
        for (int channel = 0; channel < keys.length; channel++) {
            key.add(readNativeValue(groupTypes.get(channel), keys[channel], position));
        }
        return key;
    }

    private Accumulator[] group(List<Object> key)
    {
        Accumulator[] accumulators = groups.get(key);
        return accumulators == null ? newGroup(key) : accumulators;
    }

    /** The row's group, or null when it would be a new one past the group limit. */
    private Accumulator[] groupWithin(Block[] keys, int position)
    {
        List<Object> key = key(keys, position);
        Accumulator[] accumulators = groups.get(key);
        if (accumulators != null) {
            return accumulators;
        }
        if (!groups.isEmpty() && groupBytes(key) > groupLimitBytes - groupBytes) {
            return null;
        }
        return newGroup(key);
    }

    private Accumulator[] newGroup(List<Object> key)
    {
        long bytes = groupBytes(key);
        budget.reserve(bytes, "the groups of an aggregation");
        groupBytes += bytes;
        Accumulator[] accumulators = accumulators();
        groups.put(key, accumulators);
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
