package io.nsc.trino.split;

import com.google.common.collect.ImmutableList;
import io.nsc.parquet.aggregate.AggregateKind;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;
import io.nsc.trino.metadata.NscAggregateColumnHandle;
import io.nsc.trino.metadata.NscAggregation;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongBinaryOperator;

import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static java.util.Objects.requireNonNull;

/**
 * Answers {@code count(*)}, {@code count(x)}, {@code min(x)} and {@code max(x)} of a global
 * aggregation from compact stats for the row groups every row of which matches the query's
 * predicate: their row counts, null counts and exact min/max keys are the answer, so storage
 * nodes never scan them. Only types whose exact key is their Trino value (integers, date,
 * short decimal, timestamps to the microsecond) answer min and max.
 */
public final class StatsAnswers
{
    public record Result(List<NscSplit> splits, Optional<StatsAnswer> answer) {}

    private StatsAnswers() {}

    /** Whether stats can answer this aggregation for some row groups at all. */
    public static boolean applies(NscAggregation aggregation)
    {
        return aggregation.groupBy().isEmpty() && aggregation.aggregates().stream().allMatch(StatsAnswers::answerable);
    }

    private static boolean answerable(NscAggregateColumnHandle aggregate)
    {
        return switch (aggregate.kind()) {
            case COUNT_ALL -> true;
            // the stats know a column's values, not those computed from several
            case COUNT -> aggregate.input().isPresent();
            case MIN, MAX -> aggregate.input().map(input -> keyIsValue(input.type())).orElse(false);
            case SUM, AVG -> false;
        };
    }

    private static boolean keyIsValue(Type type)
    {
        return switch (type) {
            case TinyintType _, SmallintType _, IntegerType _, BigintType _, DateType _ -> true;
            case DecimalType decimal -> decimal.isShort();
            case TimestampType timestamp -> timestamp.isShort();
            default -> false;
        };
    }

    /**
     * Takes the answerable row groups out of the splits (of some files: their answers are
     * {@link #combine}d).
     *
     * @param predicate the enforced predicate's key ranges; empty when there is none (every row matches)
     */
    public static Result answer(NscAggregation aggregation, List<FileEntry> files, List<NscSplit> splits, Optional<PruningPredicate> predicate)
    {
        requireNonNull(aggregation, "aggregation is null");
        if (predicate.isPresent() && !predicate.get().fullyTranslated()) {
            return new Result(splits, Optional.empty());
        }
        Map<String, FileEntry> filesById = files.stream().collect(toImmutableMap(FileEntry::fileId, file -> file));
        List<NscAggregateColumnHandle> aggregates = aggregation.aggregates();
        Long[] values = new Long[aggregates.size()];
        for (int i = 0; i < aggregates.size(); i++) {
            values[i] = aggregates.get(i).kind() == AggregateKind.COUNT_ALL || aggregates.get(i).kind() == AggregateKind.COUNT ? 0L : null;
        }
        long answered = 0;
        ImmutableList.Builder<NscSplit> remaining = ImmutableList.builder();
        for (NscSplit split : splits) {
            CompactFileStats stats = filesById.get(split.fileId()).stats();
            List<Integer> scanned = new ArrayList<>();
            for (int rowGroup : split.rowGroups()) {
                if (PruningPredicate.matchesEntirely(predicate, stats, rowGroup) && answerable(stats, rowGroup, aggregates)) {
                    add(stats, rowGroup, aggregates, values);
                    answered++;
                }
                else {
                    scanned.add(rowGroup);
                }
            }
            if (scanned.size() == split.rowGroups().size()) {
                remaining.add(split);
            }
            else if (!scanned.isEmpty()) {
                remaining.add(split.withRowGroups(scanned, stats));
            }
        }
        return new Result(remaining.build(), answered == 0 ? Optional.empty() : Optional.of(new StatsAnswer(answered, Arrays.asList(values))));
    }

    /** The answer over the row groups of both answers (of files of two batches). */
    public static Optional<StatsAnswer> combine(NscAggregation aggregation, Optional<StatsAnswer> first, Optional<StatsAnswer> second)
    {
        if (first.isEmpty() || second.isEmpty()) {
            return first.isPresent() ? first : second;
        }
        List<NscAggregateColumnHandle> aggregates = aggregation.aggregates();
        List<Long> values = new ArrayList<>(aggregates.size());
        for (int i = 0; i < aggregates.size(); i++) {
            Long left = first.get().values().get(i);
            Long right = second.get().values().get(i);
            values.add(switch (aggregates.get(i).kind()) {
                case COUNT_ALL, COUNT -> left + right;
                case MIN -> either(left, right, Math::min);
                case MAX -> either(left, right, Math::max);
                default -> throw new IllegalStateException("not answerable from stats: " + aggregates.get(i));
            });
        }
        return Optional.of(new StatsAnswer(first.get().rowGroups() + second.get().rowGroups(), values));
    }

    // a null min or max: those row groups hold no value
    private static Long either(Long left, Long right, LongBinaryOperator combine)
    {
        if (left == null) {
            return right;
        }
        return right == null ? left : Long.valueOf(combine.applyAsLong(left, right));
    }

    private static boolean answerable(CompactFileStats stats, int rowGroup, List<NscAggregateColumnHandle> aggregates)
    {
        long rows = stats.rowGroupRowCount(rowGroup);
        for (NscAggregateColumnHandle aggregate : aggregates) {
            if (aggregate.kind() == AggregateKind.COUNT_ALL) {
                continue;
            }
            int column = aggregate.input().orElseThrow().ordinal();
            long nulls = stats.nullCount(rowGroup, column);
            if (nulls < 0) {
                return false;
            }
            boolean minMax = aggregate.kind() == AggregateKind.MIN || aggregate.kind() == AggregateKind.MAX;
            if (minMax && nulls < rows && (stats.keyKind(column) != KeyKind.EXACT || !stats.hasMinMax(rowGroup, column))) {
                return false;
            }
        }
        return true;
    }

    private static void add(CompactFileStats stats, int rowGroup, List<NscAggregateColumnHandle> aggregates, Long[] values)
    {
        long rows = stats.rowGroupRowCount(rowGroup);
        for (int i = 0; i < aggregates.size(); i++) {
            NscAggregateColumnHandle aggregate = aggregates.get(i);
            switch (aggregate.kind()) {
                case COUNT_ALL -> values[i] += rows;
                case COUNT -> values[i] += rows - stats.nullCount(rowGroup, aggregate.input().orElseThrow().ordinal());
                case MIN, MAX -> {
                    int column = aggregate.input().orElseThrow().ordinal();
                    if (stats.nullCount(rowGroup, column) < rows) {
                        long key = aggregate.kind() == AggregateKind.MIN ? stats.min(rowGroup, column) : stats.max(rowGroup, column);
                        values[i] = values[i] == null ? key : aggregate.kind() == AggregateKind.MIN ? Math.min(values[i], key) : Math.max(values[i], key);
                    }
                }
                default -> throw new IllegalStateException("not answerable from stats: " + aggregate);
            }
        }
    }
}
