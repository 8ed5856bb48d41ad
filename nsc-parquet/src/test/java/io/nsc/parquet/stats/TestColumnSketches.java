package io.nsc.parquet.stats;

import io.trino.spi.Page;
import io.trino.spi.block.BlockBuilder;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestColumnSketches
{
    @Test
    void testDistinctCountsMergeAcrossFiles()
    {
        // file 1: 0..9999, file 2: 5000..14999 -> 15000 distinct; strings: 3 values; doubles: NaN twice, 0.0 and -0.0 once
        byte[] first = sketch(0, 10_000);
        byte[] second = sketch(5_000, 15_000);
        List<OptionalLong> counts = ColumnSketches.distinctCounts(List.of(first, second), 3);
        assertThat(counts.get(0).orElseThrow()).isBetween(14_000L, 16_000L);
        assertThat(counts.get(1)).hasValue(3);
        assertThat(counts.get(2)).hasValue(2);
        // a file without sketches makes every count unknown
        assertThat(ColumnSketches.distinctCounts(List.of(first, new byte[0]), 3)).containsOnly(OptionalLong.empty());
        // no files: no values
        assertThat(ColumnSketches.distinctCounts(List.of(), 3)).containsOnly(OptionalLong.of(0));
    }

    @Test
    void testUnionOfFilesAddedOneByOne()
    {
        List<byte[]> files = List.of(sketch(0, 3_000), sketch(2_000, 6_000), sketch(5_000, 9_000), sketch(0, 1));
        ColumnSketches.Union union = new ColumnSketches.Union(3);
        for (byte[] file : files.reversed()) {
            union.add(file);
        }
        // the order files come in does not matter, and the fold agrees with the list
        assertThat(union.distinctCounts()).isEqualTo(ColumnSketches.distinctCounts(files, 3));
        assertThat(union.distinctCounts().getFirst().orElseThrow()).isBetween(8_500L, 9_500L);
        // a file without sketches, anywhere, makes every count unknown, and later files change nothing
        union.add(new byte[0]);
        union.add(sketch(0, 100_000));
        assertThat(union.distinctCounts()).containsOnly(OptionalLong.empty());
        assertThatThrownBy(() -> new ColumnSketches.Union(2).add(files.getFirst())).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3 columns");
        // a file written before the table gained a column has no sketch for it: no value to count
        ColumnSketches.Union widened = new ColumnSketches.Union(4);
        widened.add(files.getFirst());
        assertThat(widened.distinctCounts().getLast()).hasValue(0);
        assertThat(widened.distinctCounts().getFirst().orElseThrow()).isBetween(2_800L, 3_200L);
    }

    @Test
    void testCorruptSketchesAreRefused()
    {
        byte[] valid = sketch(0, 10);
        assertThatThrownBy(() -> ColumnSketches.deserialize(valid, 4)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3 columns");
        assertThatThrownBy(() -> ColumnSketches.deserialize(new byte[] {9, 0, 0, 0, 1}, 1)).isInstanceOf(IllegalArgumentException.class);
        byte[] truncated = Arrays.copyOf(valid, valid.length - 3);
        assertThatThrownBy(() -> ColumnSketches.deserialize(truncated, 3)).isInstanceOf(IllegalArgumentException.class);
    }

    private static byte[] sketch(long from, long to)
    {
        ColumnSketches sketches = ColumnSketches.create(List.of(BIGINT, VARCHAR, DOUBLE));
        int rows = (int) (to - from);
        BlockBuilder longs = BIGINT.createBlockBuilder(null, rows);
        BlockBuilder strings = VARCHAR.createBlockBuilder(null, rows);
        BlockBuilder doubles = DOUBLE.createBlockBuilder(null, rows);
        double[] floats = {Double.NaN, 0.0, -0.0, Double.longBitsToDouble(0x7ff8000000000001L)};
        for (long value = from; value < to; value++) {
            BIGINT.writeLong(longs, value);
            if (value % 7 == 0) {
                strings.appendNull();
            }
            else {
                VARCHAR.writeSlice(strings, utf8Slice("v" + value % 3));
            }
            DOUBLE.writeDouble(doubles, floats[(int) (value % floats.length)]);
        }
        sketches.add(new Page(longs.build(), strings.build(), doubles.build()));
        return sketches.serialize();
    }
}
