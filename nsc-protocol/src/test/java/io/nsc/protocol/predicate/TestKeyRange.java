package io.nsc.protocol.predicate;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestKeyRange
{
    @Test
    void testFactories()
    {
        assertThat(KeyRange.all().isAll()).isTrue();
        assertThat(KeyRange.all()).isEqualTo(new KeyRange(5, true, true, 7, true, true));
        assertThat(KeyRange.equal(3)).isEqualTo(new KeyRange(3, true, false, 3, true, false));
        assertThat(KeyRange.greaterThan(3)).isEqualTo(new KeyRange(3, false, false, 0, false, true));
        assertThat(KeyRange.greaterThanOrEqual(3)).isEqualTo(new KeyRange(3, true, false, 0, false, true));
        assertThat(KeyRange.lessThan(3)).isEqualTo(new KeyRange(0, false, true, 3, false, false));
        assertThat(KeyRange.lessThanOrEqual(3)).isEqualTo(new KeyRange(0, false, true, 3, true, false));
        assertThat(KeyRange.range(1, true, 2, false)).isEqualTo(new KeyRange(1, true, false, 2, false, false));
        assertThat(KeyRange.greaterThan(3).isAll()).isFalse();
        assertThat(KeyRange.lessThan(3).isAll()).isFalse();
    }

    @Test
    void testUnboundedSidesAreNormalized()
    {
        KeyRange range = new KeyRange(42, true, true, 43, true, false);
        assertThat(range.low()).isEqualTo(Long.MIN_VALUE);
        assertThat(range.lowInclusive()).isFalse();
        assertThat(range.high()).isEqualTo(43);
        // a bounded side is kept even at the extremes
        assertThat(KeyRange.lessThanOrEqual(Long.MIN_VALUE).high()).isEqualTo(Long.MIN_VALUE);
        assertThat(KeyRange.greaterThan(Long.MAX_VALUE).low()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void testLowAboveHighIsRefused()
    {
        assertThatThrownBy(() -> KeyRange.range(2, true, 1, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("greater than high");
        // (k, k) is legal: empty over exact keys, not over lossy ones
        assertThat(KeyRange.range(5, false, 5, false).low()).isEqualTo(5);
    }

    @Test
    void testColumnPredicate()
    {
        assertThat(ColumnPredicate.isNull(2)).isEqualTo(new ColumnPredicate(2, List.of(), true));
        assertThat(ColumnPredicate.isNotNull(2)).isEqualTo(new ColumnPredicate(2, List.of(KeyRange.all()), false));
        // neighbours may share a key (lossy keys of distinct values)
        new ColumnPredicate(0, List.of(KeyRange.lessThan(5), KeyRange.equal(5), KeyRange.range(5, false, 9, true), KeyRange.greaterThan(9)), false);

        assertThatThrownBy(() -> new ColumnPredicate(0, List.of(KeyRange.equal(5), KeyRange.equal(4)), false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sorted and disjoint");
        assertThatThrownBy(() -> new ColumnPredicate(0, List.of(KeyRange.range(1, true, 5, true), KeyRange.range(3, true, 7, true)), false))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ColumnPredicate(0, List.of(KeyRange.greaterThan(1), KeyRange.greaterThan(5)), false))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ColumnPredicate(0, List.of(KeyRange.equal(1), KeyRange.lessThan(5)), false))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ColumnPredicate(-1, List.of(), false))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
