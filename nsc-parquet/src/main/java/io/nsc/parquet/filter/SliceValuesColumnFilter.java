package io.nsc.parquet.filter;

import io.airlift.slice.Slice;
import io.trino.spi.block.Block;
import io.trino.spi.block.DictionaryBlock;
import io.trino.spi.block.VariableWidthBlock;
import io.trino.spi.predicate.Domain;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * Varchar and varbinary against a set of single values (= and IN): compared byte for byte in
 * the block's own bytes, with no value copied or boxed per row. Both types are equal exactly
 * when their bytes are (no padding, no collation), which is the domain's answer too.
 */
final class SliceValuesColumnFilter
        implements ColumnFilter
{
    // up to this many values are compared one by one; more are looked up in a hash set
    private static final int MAX_LINEAR_VALUES = 8;

    private final Type type;
    private final boolean nullAllowed;
    private final Slice[] values;
    private final Set<Slice> valueSet;
    private final int minLength;
    private final int maxLength;

    private SliceValuesColumnFilter(Type type, boolean nullAllowed, Slice[] values)
    {
        this.type = requireNonNull(type, "type is null");
        this.nullAllowed = nullAllowed;
        this.values = values;
        this.valueSet = values.length > MAX_LINEAR_VALUES ? new HashSet<>(List.of(values)) : Set.of();
        int min = Integer.MAX_VALUE;
        int max = -1;
        for (Slice value : values) {
            min = Math.min(min, value.length());
            max = Math.max(max, value.length());
        }
        this.minLength = min;
        this.maxLength = max;
    }

    static boolean supports(Domain domain)
    {
        Type type = domain.getType();
        return (type instanceof VarcharType || type instanceof VarbinaryType) && !domain.getValues().isAll() && domain.getValues().isDiscreteSet();
    }

    static SliceValuesColumnFilter create(Domain domain)
    {
        checkArgument(supports(domain), "not a set of varchar or varbinary values: %s", domain);
        Slice[] values = domain.getValues().getDiscreteSet().stream()
                .map(Slice.class::cast)
                .toArray(Slice[]::new);
        return new SliceValuesColumnFilter(domain.getType(), domain.isNullAllowed(), values);
    }

    @Override
    public int filter(Block block, int[] positions, int count)
    {
        if (block instanceof VariableWidthBlock variableWidth) {
            return filterVariableWidth(variableWidth, positions, count);
        }
        if (block instanceof DictionaryBlock ids && ids.getDictionary() instanceof VariableWidthBlock dictionary) {
            return filterIds(ids, dictionary, positions, count);
        }
        int passed = 0;
        for (int i = 0; i < count; i++) {
            int position = positions[i];
            boolean matches;
            if (block.isNull(position)) {
                matches = nullAllowed;
            }
            else {
                Slice value = type.getSlice(block, position);
                matches = contains(value, 0, value.length());
            }
            if (matches) {
                positions[passed++] = position;
            }
        }
        return passed;
    }

    private int filterVariableWidth(VariableWidthBlock block, int[] positions, int count)
    {
        Slice raw = block.getRawSlice();
        boolean mayHaveNull = block.mayHaveNull();
        int passed = 0;
        for (int i = 0; i < count; i++) {
            int position = positions[i];
            boolean matches;
            if (mayHaveNull && block.isNull(position)) {
                matches = nullAllowed;
            }
            else {
                matches = contains(raw, block.getRawSliceOffset(position), block.getSliceLength(position));
            }
            positions[passed] = position;
            passed += matches ? 1 : 0;
        }
        return passed;
    }

    private int filterIds(DictionaryBlock ids, VariableWidthBlock dictionary, int[] positions, int count)
    {
        Slice raw = dictionary.getRawSlice();
        boolean mayHaveNull = dictionary.mayHaveNull();
        int passed = 0;
        for (int i = 0; i < count; i++) {
            int position = positions[i];
            int id = ids.getId(position);
            boolean matches;
            if (mayHaveNull && dictionary.isNull(id)) {
                matches = nullAllowed;
            }
            else {
                matches = contains(raw, dictionary.getRawSliceOffset(id), dictionary.getSliceLength(id));
            }
            positions[passed] = position;
            passed += matches ? 1 : 0;
        }
        return passed;
    }

    private boolean contains(Slice bytes, int offset, int length)
    {
        if (length < minLength || length > maxLength) {
            return false;
        }
        if (values.length > MAX_LINEAR_VALUES) {
            return valueSet.contains(bytes.slice(offset, length));
        }
        for (Slice value : values) {
            if (value.length() == length && bytes.equals(offset, length, value, 0, length)) {
                return true;
            }
        }
        return false;
    }
}
