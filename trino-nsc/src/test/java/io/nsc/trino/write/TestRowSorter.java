package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.CharType;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.CharType.createCharType;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;

final class TestRowSorter
{
    private static final TypeOperators TYPE_OPERATORS = new TypeOperators();
    private static final CharType CHAR_3 = createCharType(3);
    // id, score, name, code
    private static final List<Type> TYPES = List.of(BIGINT, DOUBLE, VARCHAR, CHAR_3);

    @Test
    void testSortsAcrossPagesWithNullsLastAndNanAfterNumbers()
    {
        List<Page> pages = List.of(
                page(row(0, 2.5, "b", "x"), row(1, null, "a", null), row(2, Double.NaN, "c", "y")),
                page(row(3, -1.0, null, "x"), row(4, Double.POSITIVE_INFINITY, "a", "z")),
                page(row(5, -0.0, "b", "x"), row(6, 2.5, "a", "x")));

        // by score: -1, -0.0, 2.5 (ids 0 then 6, input order kept), +inf, NaN, then null
        assertThat(ids(new RowSorter(TYPES, List.of(1), TYPE_OPERATORS).sort(pages, PageSize.ofRows(1000))))
                .containsExactly(3L, 5L, 0L, 6L, 4L, 2L, 1L);
        // by name then score: a (2.5, +inf, null), b (-0.0, 2.5), c, null
        assertThat(ids(new RowSorter(TYPES, List.of(2, 1), TYPE_OPERATORS).sort(pages, PageSize.ofRows(1000))))
                .containsExactly(6L, 4L, 1L, 5L, 0L, 2L, 3L);
    }

    @Test
    void testCharComparesAsTrinoDoes()
    {
        // char(3) values are space-padded: 'a' equals 'a  ' and sorts before 'a b'
        List<Page> pages = List.of(page(row(0, 0.0, "", "a b"), row(1, 0.0, "", "a"), row(2, 0.0, "", "A"), row(3, 0.0, "", "a  ")));
        assertThat(ids(new RowSorter(TYPES, List.of(3), TYPE_OPERATORS).sort(pages, PageSize.ofRows(1000))))
                .containsExactly(2L, 1L, 3L, 0L);
    }

    @Test
    void testOutputPagesCopyEveryColumn()
    {
        List<Page> pages = new ArrayList<>();
        List<Object[]> expected = new ArrayList<>();
        for (int page = 0; page < 5; page++) {
            List<Object[]> rows = new ArrayList<>();
            for (int i = 0; i < 7; i++) {
                long id = page * 7L + i;
                // descending scores: the sort reverses the input
                rows.add(row(id, 1000.0 - id, "n" + id, id % 2 == 0 ? null : "c"));
            }
            pages.add(page(rows.toArray(Object[][]::new)));
            expected.addAll(rows);
        }
        Iterator<Page> sorted = new RowSorter(TYPES, List.of(1), TYPE_OPERATORS).sort(pages, PageSize.ofRows(10));
        List<Integer> pageSizes = new ArrayList<>();
        List<Object[]> actual = new ArrayList<>();
        sorted.forEachRemaining(page -> {
            pageSizes.add(page.getPositionCount());
            actual.addAll(rows(page));
        });
        assertThat(pageSizes).containsExactly(10, 10, 10, 5);
        assertThat(actual).usingElementComparator((left, right) -> Arrays.equals(left, right) ? 0 : 1)
                .containsExactlyElementsOf(ImmutableList.copyOf(expected).reverse());
    }

    @Test
    void testNoRows()
    {
        assertThat(new RowSorter(TYPES, List.of(0), TYPE_OPERATORS).sort(List.of(), PageSize.ofRows(10))).isExhausted();
    }

    private static Object[] row(long id, Double score, String name, String code)
    {
        return new Object[] {id, score, name, code};
    }

    private static Page page(Object[]... rows)
    {
        BlockBuilder[] builders = TYPES.stream().map(type -> type.createBlockBuilder(null, rows.length)).toArray(BlockBuilder[]::new);
        for (Object[] row : rows) {
            BIGINT.writeLong(builders[0], (Long) row[0]);
            if (row[1] == null) {
                builders[1].appendNull();
            }
            else {
                DOUBLE.writeDouble(builders[1], (Double) row[1]);
            }
            if (row[2] == null) {
                builders[2].appendNull();
            }
            else {
                VARCHAR.writeSlice(builders[2], utf8Slice((String) row[2]));
            }
            if (row[3] == null) {
                builders[3].appendNull();
            }
            else {
                // Trino keeps char values without trailing spaces
                CHAR_3.writeSlice(builders[3], utf8Slice(((String) row[3]).stripTrailing()));
            }
        }
        return new Page(Arrays.stream(builders).map(BlockBuilder::build).toArray(Block[]::new));
    }

    private static List<Long> ids(Iterator<Page> pages)
    {
        List<Long> ids = new ArrayList<>();
        pages.forEachRemaining(page -> rows(page).forEach(row -> ids.add((Long) row[0])));
        return ids;
    }

    private static List<Object[]> rows(Page page)
    {
        List<Object[]> rows = new ArrayList<>();
        for (int position = 0; position < page.getPositionCount(); position++) {
            Object[] row = new Object[TYPES.size()];
            for (int channel = 0; channel < TYPES.size(); channel++) {
                Block block = page.getBlock(channel);
                if (block.isNull(position)) {
                    continue;
                }
                row[channel] = switch (channel) {
                    case 0 -> BIGINT.getLong(block, position);
                    case 1 -> DOUBLE.getDouble(block, position);
                    case 2 -> VARCHAR.getSlice(block, position).toStringUtf8();
                    default -> CHAR_3.getSlice(block, position).toStringUtf8();
                };
            }
            rows.add(row);
        }
        return rows;
    }
}
