package io.nsc.trino.split;

import io.nsc.protocol.predicate.ColumnPredicate;
import io.nsc.protocol.predicate.KeyRange;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.trino.spi.HostAddress;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_ANSWERED_FROM_STATS;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_FULLY_MATCHING;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_DYNAMIC_FILTER;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_FILTER;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_STATS;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_TOP_N;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_TOTAL;
import static io.nsc.trino.split.RowGroupPlanner.SPLITS;
import static io.nsc.trino.split.RowGroupPlanner.SPLITS_FILTER;
import static io.nsc.trino.split.RowGroupPlanner.SPLITS_RAW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

final class TestRowGroupPlanner
{
    private static final List<HostAddress> REPLICAS = List.of(HostAddress.fromString("127.0.0.1:1"), HostAddress.fromString("127.0.0.1:2"));

    @Test
    void testPacksSurvivingRowGroupsUpToTargetSize()
    {
        // ten row groups of 100 bytes, values 0..9, 10..19, ...
        List<FileEntry> files = List.of(file("a", 10, 100));
        RowGroupPlanner.Plan plan = new RowGroupPlanner(250).plan(files, Optional.empty());
        assertThat(plan.splits()).extracting(NscSplit::rowGroups)
                .containsExactly(List.of(0, 1), List.of(2, 3), List.of(4, 5), List.of(6, 7), List.of(8, 9));
        assertThat(plan.splits()).allSatisfy(split -> {
            assertThat(split.rowCount()).isEqualTo(20);
            assertThat(split.compressedBytes()).isEqualTo(200);
            assertThat(split.addresses()).isEqualTo(REPLICAS);
        });
        assertThat(plan.rowGroupsPruned()).isZero();
    }

    @Test
    void testPrunedRowGroupsGetNoSplit()
    {
        List<FileEntry> files = List.of(file("a", 10, 100), file("b", 10, 100));
        // 25 <= x <= 44 touches row groups 2, 3 and 4 of each file; 30..39 (row group 3) matches entirely
        ColumnPredicate predicate = new ColumnPredicate(0, List.of(KeyRange.range(25, true, 44, true)), false);
        RowGroupPlanner.Plan plan = new RowGroupPlanner(1000).plan(files, Optional.of(new PruningPredicate(List.of(predicate), true, List.of())));
        assertThat(plan.splits()).extracting(NscSplit::fileId, NscSplit::rowGroups)
                .containsExactly(
                        tuple("a", List.of(2, 3, 4)),
                        tuple("b", List.of(2, 3, 4)));
        assertThat(plan.rowGroupsTotal()).isEqualTo(20);
        assertThat(plan.rowGroupsPruned()).isEqualTo(14);
        assertThat(plan.rowGroupsFullyMatching()).isEqualTo(2);
        assertThat(plan.metrics().getMetrics()).containsOnlyKeys(ROW_GROUPS_TOTAL, ROW_GROUPS_PRUNED_BY_STATS, ROW_GROUPS_PRUNED_BY_DYNAMIC_FILTER, ROW_GROUPS_PRUNED_BY_FILTER, ROW_GROUPS_FULLY_MATCHING, ROW_GROUPS_ANSWERED_FROM_STATS, ROW_GROUPS_PRUNED_BY_TOP_N, SPLITS, SPLITS_RAW, SPLITS_FILTER);
    }

    @Test
    void testNothingMatchesMeansNoSplit()
    {
        List<FileEntry> files = List.of(file("a", 10, 100));
        ColumnPredicate predicate = new ColumnPredicate(0, List.of(KeyRange.greaterThan(1000)), false);
        RowGroupPlanner.Plan plan = new RowGroupPlanner(1000).plan(files, Optional.of(new PruningPredicate(List.of(predicate), true, List.of())));
        assertThat(plan.splits()).isEmpty();
        assertThat(plan.rowGroupsPruned()).isEqualTo(10);
    }

    @Test
    void testEmptyRowGroupsAreSkippedEvenWithoutPruning()
    {
        CompactFileStats stats = CompactFileStats.builder(List.of(KeyKind.EXACT))
                .addRowGroup(0, 4)
                .addColumnChunk(0, OptionalLong.empty(), OptionalLong.empty(), 0)
                .addRowGroup(5, 4)
                .addColumnChunk(50, OptionalLong.of(1), OptionalLong.of(5), 0)
                .build();
        List<FileEntry> files = List.of(new FileEntry("a", 1000, 5, REPLICAS, stats));
        RowGroupPlanner.Plan plan = new RowGroupPlanner(1000).plan(files, Optional.empty());
        assertThat(plan.splits()).extracting(NscSplit::rowGroups).containsExactly(List.of(1));
    }

    private static FileEntry file(String id, int rowGroups, long bytesPerRowGroup)
    {
        CompactFileStats.Builder builder = CompactFileStats.builder(List.of(KeyKind.EXACT));
        for (int rowGroup = 0; rowGroup < rowGroups; rowGroup++) {
            builder.addRowGroup(10, 4 + rowGroup * bytesPerRowGroup)
                    .addColumnChunk(bytesPerRowGroup, OptionalLong.of(rowGroup * 10L), OptionalLong.of(rowGroup * 10L + 9), 0);
        }
        return new FileEntry(id, 4 + rowGroups * bytesPerRowGroup + 100, rowGroups * 10L, REPLICAS, builder.build());
    }
}
