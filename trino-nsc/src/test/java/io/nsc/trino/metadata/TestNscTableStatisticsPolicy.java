package io.nsc.trino.metadata;

import io.nsc.protocol.proto.AnalyzedColumn;
import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

import static io.nsc.trino.metadata.NscTableStatistics.distinctCount;
import static org.assertj.core.api.Assertions.assertThat;

/** Which distinct count a column gets from ANALYZE's and the sketches' (the policy of {@link NscTableStatistics}). */
final class TestNscTableStatisticsPolicy
{
    private static final Optional<AnalyzedColumn> KEY = analyzed(5, 1000, 990);
    private static final Optional<AnalyzedColumn> STATUS = analyzed(5, 1000, 3);

    @Test
    void testWithoutAnalysisTheSketches()
    {
        assertThat(distinctCount(OptionalLong.of(7), Optional.empty(), 5, 100)).isEqualTo(OptionalDouble.of(7));
        assertThat(distinctCount(OptionalLong.empty(), Optional.empty(), 5, 100)).isEmpty();
    }

    @Test
    void testAtTheVersionAnalyzed()
    {
        assertThat(distinctCount(OptionalLong.of(1200), KEY, 5, 1000)).isEqualTo(OptionalDouble.of(990));
        assertThat(distinctCount(OptionalLong.empty(), STATUS, 5, 1000)).isEqualTo(OptionalDouble.of(3));
    }

    @Test
    void testBeforeTheVersionAnalyzed()
    {
        assertThat(distinctCount(OptionalLong.of(500), KEY, 4, 500)).isEqualTo(OptionalDouble.of(500));
        assertThat(distinctCount(OptionalLong.empty(), KEY, 4, 500)).isEmpty();
    }

    @Test
    void testAfterTheVersionAnalyzed()
    {
        // sketches of every file describe the version read
        assertThat(distinctCount(OptionalLong.of(1900), KEY, 6, 2000)).isEqualTo(OptionalDouble.of(1900));
        // without them: a key grows (or shrinks) with its values, another column keeps its count
        assertThat(distinctCount(OptionalLong.empty(), KEY, 6, 2000)).isEqualTo(OptionalDouble.of(1980));
        assertThat(distinctCount(OptionalLong.empty(), KEY, 6, 500)).isEqualTo(OptionalDouble.of(495));
        assertThat(distinctCount(OptionalLong.empty(), STATUS, 6, 2000)).isEqualTo(OptionalDouble.of(3));
        // no values when analyzed: nothing to scale
        assertThat(distinctCount(OptionalLong.empty(), analyzed(5, 0, 0), 6, 2000)).isEqualTo(OptionalDouble.of(0));
    }

    private static Optional<AnalyzedColumn> analyzed(long version, long nonNull, long distinct)
    {
        return Optional.of(AnalyzedColumn.newBuilder()
                .setOrdinal(0)
                .setAnalyzedVersion(version)
                .setRowCount(nonNull)
                .setNonNullCount(nonNull)
                .setDistinctCount(distinct)
                .build());
    }
}
