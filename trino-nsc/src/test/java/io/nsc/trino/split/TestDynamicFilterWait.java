package io.nsc.trino.split;

import io.nsc.trino.metadata.NscColumnHandle;
import io.nsc.trino.metadata.NscTableHandle;
import io.nsc.trino.metadata.TableSummary;
import io.nsc.trino.metadata.TableSummary.ColumnSummary;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Split planning waits for a join's filter only where the filter can prune row groups; workers wait
 * for it only where the probe side is large enough for the filter to save more than the wait.
 */
final class TestDynamicFilterWait
{
    private static final NscColumnHandle SORTED = new NscColumnHandle("sorted", BIGINT, 0);
    private static final NscColumnHandle SPREAD = new NscColumnHandle("spread", BIGINT, 1);
    private static final NscColumnHandle NAME = new NscColumnHandle("name", VARCHAR, 2);
    private static final NscColumnHandle BLOOM = new NscColumnHandle("bloom", BIGINT, 3);
    private static final NscTableHandle TABLE = NscTableHandle.forTable(new SchemaTableName("s", "t"), 1, 1, List.of(SORTED, SPREAD, NAME, BLOOM), Map.of("bloom_filter_columns", "bloom"));
    // forty row groups: each holds a fortieth of the sorted column's range and nearly all of the spread one's
    private static final TableSummary SUMMARY = new TableSummary(
            4000,
            List.of(column(1.0 / 40), column(0.95), new ColumnSummary(OptionalLong.of(0), 100, OptionalLong.empty(), OptionalLong.empty(), OptionalDouble.empty()), column(0.95)),
            List.of(OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty()));

    @Test
    void testWaitsWhereRowGroupsHoldNarrowRanges()
    {
        assertThat(waitMillis(pending(SORTED))).isEqualTo(1000);
        assertThat(waitMillis(pending(SORTED, SPREAD))).isEqualTo(1000);
        assertThat(DynamicFilterWait.waitMillis(TABLE, pending(SORTED), () -> SUMMARY, 0)).isZero();
    }

    @Test
    void testWaitsForABloomFilterColumnWhateverItsRanges()
    {
        assertThat(waitMillis(pending(BLOOM))).isEqualTo(1000);
    }

    @Test
    void testPlansAtOnceWhereTheFilterCannotPrune()
    {
        // every row group spans most of the column: a join's keys fall in each
        assertThat(waitMillis(pending(SPREAD))).isZero();
        // strings' lossy keys give no range
        assertThat(waitMillis(pending(NAME))).isZero();
        // a filter on a value the connector computes
        assertThat(waitMillis(pending(new ColumnHandle() {}))).isZero();
        // no filter to come: the table's summary is not even asked for
        Supplier<TableSummary> unused = () -> {
            throw new AssertionError("summary asked for");
        };
        assertThat(DynamicFilterWait.waitMillis(TABLE, DynamicFilter.EMPTY, unused, 1000)).isZero();
    }

    @Test
    void testWorkersAwaitAFilterOnlyForAProbeSideWorthIt()
    {
        // the four columns hold 100 bytes each: what a filter could save at most
        assertThat(DynamicFilterWait.workersAwait(TABLE, pending(SPREAD), () -> SUMMARY, 1000, 400)).isTrue();
        assertThat(DynamicFilterWait.workersAwait(TABLE, pending(SPREAD), () -> SUMMARY, 1000, 401)).isFalse();
        // only the columns the scan reads count: its output and its predicate's
        NscTableHandle oneColumn = TABLE.withProjectedColumns(List.of(SPREAD));
        assertThat(DynamicFilterWait.workersAwait(oneColumn, pending(SPREAD), () -> SUMMARY, 1000, 101)).isFalse();
        NscTableHandle filtered = oneColumn.withConstraint(TupleDomain.withColumnDomains(Map.of(NAME, Domain.singleValue(VARCHAR, utf8Slice("a")))), true);
        assertThat(DynamicFilterWait.workersAwait(filtered, pending(SPREAD), () -> SUMMARY, 1000, 200)).isTrue();
        // no size asked for: every probe side waits
        assertThat(DynamicFilterWait.workersAwait(TABLE, pending(SPREAD), () -> SUMMARY, 1000, 0)).isTrue();
    }

    @Test
    void testWorkersDoNotAwaitWithoutAFilterToComeOrATimeout()
    {
        Supplier<TableSummary> unused = () -> {
            throw new AssertionError("summary asked for");
        };
        assertThat(DynamicFilterWait.workersAwait(TABLE, DynamicFilter.EMPTY, unused, 1000, 1)).isFalse();
        assertThat(DynamicFilterWait.workersAwait(TABLE, pending(SPREAD), unused, 0, 1)).isFalse();
    }

    private static long waitMillis(DynamicFilter filter)
    {
        return DynamicFilterWait.waitMillis(TABLE, filter, () -> SUMMARY, 1000);
    }

    private static ColumnSummary column(double spanShare)
    {
        return new ColumnSummary(OptionalLong.of(0), 100, OptionalLong.of(0), OptionalLong.of(1000), OptionalDouble.of(spanShare));
    }

    private static DynamicFilter pending(ColumnHandle... columns)
    {
        return new DynamicFilter()
        {
            @Override
            public Set<ColumnHandle> getColumnsCovered()
            {
                return Set.of(columns);
            }

            @Override
            public CompletableFuture<?> isBlocked()
            {
                return new CompletableFuture<>();
            }

            @Override
            public boolean isComplete()
            {
                return false;
            }

            @Override
            public boolean isAwaitable()
            {
                return true;
            }

            @Override
            public TupleDomain<ColumnHandle> getCurrentPredicate()
            {
                return TupleDomain.all();
            }
        };
    }
}
