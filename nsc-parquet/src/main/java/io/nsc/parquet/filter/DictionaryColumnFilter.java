package io.nsc.parquet.filter;

import io.trino.spi.block.Block;
import io.trino.spi.block.DictionaryBlock;
import io.trino.spi.block.RunLengthEncodedBlock;

import static java.util.Objects.requireNonNull;

/**
 * A column's filter over its dictionary instead of its rows: trino-parquet reads a
 * dictionary-encoded column as ids into the column chunk's dictionary, one dictionary for every
 * page of the row group, so each distinct value is tested once and each row looks its answer up
 * by id. A run-length block is one test. Filters that are domains never fail, so testing a
 * dictionary value no row picks changes nothing. A dictionary bigger than the rows to test (the
 * view a filter leaves over a flat page) is not worth it: those rows are tested as they are.
 */
final class DictionaryColumnFilter
        implements ColumnFilter
{
    private final ColumnFilter values;
    // the answers for the dictionary seen last, by id
    private Block dictionary;
    private boolean[] matches = new boolean[0];
    private int[] dictionaryPositions = new int[0];

    DictionaryColumnFilter(ColumnFilter values)
    {
        this.values = requireNonNull(values, "values is null");
    }

    @Override
    public int filter(Block block, int[] positions, int count)
    {
        return switch (block) {
            case DictionaryBlock ids when ids.getDictionary() == dictionary || ids.getDictionary().getPositionCount() <= count -> filterIds(ids, positions, count);
            case RunLengthEncodedBlock constant -> matches(constant.getValue(), 0) ? count : 0;
            default -> values.filter(block, positions, count);
        };
    }

    private int filterIds(DictionaryBlock ids, int[] positions, int count)
    {
        if (ids.getDictionary() != dictionary) {
            test(ids.getDictionary());
        }
        boolean[] answers = matches;
        int passed = 0;
        for (int i = 0; i < count; i++) {
            int position = positions[i];
            positions[passed] = position;
            passed += answers[ids.getId(position)] ? 1 : 0;
        }
        return passed;
    }

    private void test(Block newDictionary)
    {
        int size = newDictionary.getPositionCount();
        if (dictionaryPositions.length < size) {
            dictionaryPositions = new int[size];
            matches = new boolean[size];
        }
        for (int position = 0; position < size; position++) {
            dictionaryPositions[position] = position;
            matches[position] = false;
        }
        int passed = values.filter(newDictionary, dictionaryPositions, size);
        for (int i = 0; i < passed; i++) {
            matches[dictionaryPositions[i]] = true;
        }
        dictionary = newDictionary;
    }

    private boolean matches(Block value, int position)
    {
        int[] single = {position};
        return values.filter(value, single, 1) == 1;
    }
}
