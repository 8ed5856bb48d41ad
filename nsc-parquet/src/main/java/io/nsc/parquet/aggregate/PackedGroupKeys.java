package io.nsc.parquet.aggregate;

import io.airlift.slice.Slice;
import io.trino.spi.block.Block;
import io.trino.spi.block.ByteArrayBlock;
import io.trino.spi.block.DictionaryBlock;
import io.trino.spi.block.IntArrayBlock;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.block.ShortArrayBlock;
import io.trino.spi.block.VariableWidthBlock;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;

import java.util.Arrays;
import java.util.List;

/**
 * Group keys packed into primitive longs, and a hash table from them to their groups' accumulators,
 * so that a row finds its group without a key boxed per row. A key value packs when it is one of the
 * long-valued types (integers, date, short decimal and timestamp: the long is the value) or a
 * varchar or varbinary of at most 7 bytes (its length and bytes), which covers the low-cardinality
 * keys aggregation pushdown is accepted for (flags, statuses, codes, dates). Two rows pack the
 * same exactly when their keys are equal as the boxed keys compare them (the same longs, the same
 * bytes, NULL in the same places); a dictionary or run-length block packs its values once. A
 * page whose keys do not pack (a longer string, another block shape) takes the boxed path; the table only caches groups that path created, and is emptied
 * whenever a group is taken.
 */
final class PackedGroupKeys
{
    private static final int MAX_STRING_BYTES = 7;

    private final int keyCount;
    // per entry: keyCount codes, then a mask of the NULL keys; the mask's bit 63 marks the entry used
    private long[] entries;
    private Accumulator[][] groups;
    private int size;
    private int mask;

    // the page's codes, row by row, as last packed
    private long[] rowCodes = new long[0];
    // one key block's values, packed
    private long[] valueCodes = new long[0];
    private boolean[] valueNulls = new boolean[0];

    PackedGroupKeys(List<Type> keyTypes)
    {
        this.keyCount = keyTypes.size();
        clear();
    }

    static boolean supports(List<Type> keyTypes)
    {
        return !keyTypes.isEmpty() && keyTypes.size() <= 62 && keyTypes.stream().allMatch(PackedGroupKeys::packable);
    }

    private static boolean packable(Type type)
    {
        return switch (type) {
            case BigintType _, IntegerType _, SmallintType _, TinyintType _, DateType _, VarcharType _, VarbinaryType _ -> true;
            case DecimalType decimal -> decimal.isShort();
            case TimestampType timestamp -> timestamp.isShort();
            default -> false;
        };
    }

    void clear()
    {
        entries = new long[16 * (keyCount + 1)];
        groups = new Accumulator[16][];
        size = 0;
        mask = 15;
    }

    /**
     * Packs the keys of rows {@code [0, positionCount)}; false when some key of the page does not
     * pack (then {@link #find} must not be asked about it).
     */
    boolean pack(Block[] keys, int positionCount)
    {
        int stride = keyCount + 1;
        if (rowCodes.length < positionCount * stride) {
            rowCodes = new long[positionCount * stride];
        }
        Arrays.fill(rowCodes, 0, positionCount * stride, 0);
        for (int key = 0; key < keyCount; key++) {
            if (!packKey(keys[key], key, positionCount, stride)) {
                return false;
            }
        }
        return true;
    }

    private boolean packKey(Block block, int key, int positionCount, int stride)
    {
        long nullBit = 1L << key;
        switch (block) {
            case DictionaryBlock dictionary -> {
                // the dictionary's values packed once, then picked by id
                int dictionarySize = dictionary.getDictionary().getPositionCount();
                if (!values(dictionary.getDictionary(), dictionarySize)) {
                    return false;
                }
                for (int position = 0; position < positionCount; position++) {
                    int id = dictionary.getId(position);
                    place(position * stride, key, nullBit, id);
                }
            }
            case RunLengthEncodedBlock constant -> {
                if (!values(constant.getValue(), 1)) {
                    return false;
                }
                for (int position = 0; position < positionCount; position++) {
                    place(position * stride, key, nullBit, 0);
                }
            }
            default -> {
                if (!values(block, positionCount)) {
                    return false;
                }
                for (int position = 0; position < positionCount; position++) {
                    place(position * stride, key, nullBit, position);
                }
            }
        }
        return true;
    }

    private void place(int row, int key, long nullBit, int value)
    {
        if (valueNulls[value]) {
            rowCodes[row + keyCount] |= nullBit;
        }
        else {
            rowCodes[row + key] = valueCodes[value];
        }
    }

    /** Packs the values of a flat block into valueCodes and valueNulls; false for a value or block that does not pack. */
    private boolean values(Block block, int count)
    {
        if (valueCodes.length < count) {
            valueCodes = new long[count];
            valueNulls = new boolean[count];
        }
        boolean mayHaveNull = block.mayHaveNull();
        for (int position = 0; position < count; position++) {
            valueNulls[position] = mayHaveNull && block.isNull(position);
        }
        switch (block) {
            case LongArrayBlock longs -> {
                for (int position = 0; position < count; position++) {
                    valueCodes[position] = valueNulls[position] ? 0 : longs.getLong(position);
                }
            }
            case IntArrayBlock ints -> {
                for (int position = 0; position < count; position++) {
                    valueCodes[position] = valueNulls[position] ? 0 : ints.getInt(position);
                }
            }
            case ShortArrayBlock shorts -> {
                for (int position = 0; position < count; position++) {
                    valueCodes[position] = valueNulls[position] ? 0 : shorts.getShort(position);
                }
            }
            case ByteArrayBlock bytes -> {
                for (int position = 0; position < count; position++) {
                    valueCodes[position] = valueNulls[position] ? 0 : bytes.getByte(position);
                }
            }
            case VariableWidthBlock strings -> {
                Slice raw = strings.getRawSlice();
                for (int position = 0; position < count; position++) {
                    if (valueNulls[position]) {
                        valueCodes[position] = 0;
                        continue;
                    }
                    int length = strings.getSliceLength(position);
                    if (length > MAX_STRING_BYTES) {
                        return false;
                    }
                    int offset = strings.getRawSliceOffset(position);
                    // the length in the top byte tells "a" from "a\0"
                    long code = (long) (length + 1) << 56;
                    for (int i = 0; i < length; i++) {
                        code |= (raw.getByte(offset + i) & 0xFFL) << (8 * i);
                    }
                    valueCodes[position] = code;
                }
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    /** The group of the packed row, or null when the table holds none for it yet. */
    Accumulator[] find(int position)
    {
        int stride = keyCount + 1;
        int row = position * stride;
        int slot = hash(row) & mask;
        while (true) {
            int entry = slot * stride;
            if (entries[entry + keyCount] == 0) {
                return null;
            }
            if (sameKey(entry, row)) {
                return groups[slot];
            }
            slot = (slot + 1) & mask;
        }
    }

    /** Remembers the group of the packed row, which {@link #find} did not know. */
    void put(int position, Accumulator[] group)
    {
        if (size * 2 >= groups.length) {
            grow();
        }
        insert(rowCodes, position * (keyCount + 1), group);
    }

    private void insert(long[] codes, int from, Accumulator[] group)
    {
        int stride = keyCount + 1;
        int slot = hash(codes, from) & mask;
        while (entries[slot * stride + keyCount] != 0) {
            slot = (slot + 1) & mask;
        }
        System.arraycopy(codes, from, entries, slot * stride, stride);
        entries[slot * stride + keyCount] |= Long.MIN_VALUE;
        groups[slot] = group;
        size++;
    }

    private void grow()
    {
        int stride = keyCount + 1;
        long[] oldEntries = entries;
        Accumulator[][] oldGroups = groups;
        entries = new long[oldGroups.length * 2 * stride];
        groups = new Accumulator[oldGroups.length * 2][];
        mask = groups.length - 1;
        size = 0;
        for (int slot = 0; slot < oldGroups.length; slot++) {
            if (oldEntries[slot * stride + keyCount] != 0) {
                oldEntries[slot * stride + keyCount] &= Long.MAX_VALUE;
                insert(oldEntries, slot * stride, oldGroups[slot]);
            }
        }
    }

    private boolean sameKey(int entry, int row)
    {
        for (int i = 0; i < keyCount; i++) {
            if (entries[entry + i] != rowCodes[row + i]) {
                return false;
            }
        }
        return (entries[entry + keyCount] & Long.MAX_VALUE) == rowCodes[row + keyCount];
    }

    private int hash(int row)
    {
        return hash(rowCodes, row);
    }

    private int hash(long[] codes, int from)
    {
        long hash = 0;
        for (int i = 0; i <= keyCount; i++) {
            // the used mark is not part of the key
            long code = i == keyCount ? codes[from + i] & Long.MAX_VALUE : codes[from + i];
            hash = (hash + code) * 0x9E3779B97F4A7C15L;
        }
        return (int) (hash ^ (hash >>> 32));
    }
}
