package io.nsc.trino.delete;

import com.google.common.collect.ImmutableList;
import io.nsc.protocol.predicate.RowGroupMatch;
import io.nsc.protocol.predicate.RowGroupPruner;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.trino.metadata.NscTableHandle;
import io.nsc.trino.metadata.TableFileBatches;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.nsc.trino.split.PruningPredicate;
import io.nsc.trino.split.StatsPredicates;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A DELETE the compact stats answer alone: every row group of the table version either matches
 * the statement's predicate entirely (its rows all go) or not at all (it stays), so whole files
 * and row groups leave the table in the metadata, and no byte of a file is read or written.
 * A row group the stats cannot place on either side (some rows match, or the predicate is more
 * than key ranges can say) leaves the statement to the row-level path.
 */
public final class MetadataOnlyDelete
{
    private final Optional<PruningPredicate> predicate;
    private final boolean matchesNothing;
    // whether a row group all of whose keys are in the predicate's ranges matches it entirely
    private final boolean exact;

    /**
     * @param table a scan whose predicate the connector enforces entirely: no row filter of
     *        Trino's stands above it
     */
    public MetadataOnlyDelete(NscTableHandle table)
    {
        requireNonNull(table, "table is null");
        this.matchesNothing = table.constraint().isNone();
        // filter expressions (LIKE, OR across columns, ...) are beyond what stats can tell
        this.predicate = matchesNothing || table.constraint().isAll() ? Optional.empty() : Optional.of(StatsPredicates.toPruningPredicate(table.constraint()));
        this.exact = table.filterExpressions().isEmpty() && predicate.map(PruningPredicate::fullyTranslated).orElse(true);
    }

    /**
     * @return what leaves the table, or empty when a row group of the version matches the predicate
     *         in part (or may): then only reading its rows tells which go
     */
    public Optional<NscMergeFragment> plan(TableFileBatches files)
    {
        List<String> removedFiles = new ArrayList<>();
        Map<String, List<Integer>> removedRowGroups = new LinkedHashMap<>();
        if (matchesNothing) {
            return Optional.of(NscMergeFragment.deletion(removedFiles, removedRowGroups));
        }
        while (files.hasNext()) {
            for (FileEntry file : files.next()) {
                Optional<FileRemoval> removal = classify(file);
                if (removal.isEmpty()) {
                    return Optional.empty();
                }
                switch (removal.get()) {
                    case FileRemoval.Untouched _ -> {}
                    case FileRemoval.WholeFile _ -> removedFiles.add(file.fileId());
                    case FileRemoval.RowGroups rowGroups -> removedRowGroups.put(file.fileId(), rowGroups.rowGroups());
                }
            }
        }
        return Optional.of(NscMergeFragment.deletion(removedFiles, removedRowGroups));
    }

    /** What the statement does to the file: empty when a row group of it matches in part. */
    private Optional<FileRemoval> classify(FileEntry file)
    {
        CompactFileStats stats = file.stats();
        ImmutableList.Builder<Integer> matching = ImmutableList.builder();
        boolean rowsStay = false;
        for (int rowGroup : file.remainingRowGroups()) {
            if (stats.rowGroupRowCount(rowGroup) == 0) {
                // nothing in it to delete, nor to keep
                continue;
            }
            switch (match(stats, rowGroup)) {
                case NONE -> rowsStay = true;
                case ALL -> matching.add(rowGroup);
                case SOME -> {
                    return Optional.empty();
                }
            }
        }
        List<Integer> rowGroups = matching.build();
        if (rowGroups.isEmpty()) {
            return Optional.of(new FileRemoval.Untouched());
        }
        return Optional.of(rowsStay ? new FileRemoval.RowGroups(rowGroups) : new FileRemoval.WholeFile());
    }

    private RowGroupMatch match(CompactFileStats stats, int rowGroup)
    {
        if (predicate.isEmpty()) {
            // no predicate: every row goes, unless filter expressions decide
            return exact ? RowGroupMatch.ALL : RowGroupMatch.SOME;
        }
        RowGroupMatch match = RowGroupPruner.classify(stats, rowGroup, predicate.get().columns());
        if (match == RowGroupMatch.NONE || !predicate.get().mayMatchFilters(stats, rowGroup)) {
            // no row matches the key ranges: the filter expressions cannot add one
            return RowGroupMatch.NONE;
        }
        return match == RowGroupMatch.ALL && exact ? RowGroupMatch.ALL : RowGroupMatch.SOME;
    }

    private sealed interface FileRemoval
    {
        record Untouched()
                implements FileRemoval {}

        record WholeFile()
                implements FileRemoval {}

        record RowGroups(List<Integer> rowGroups)
                implements FileRemoval {}
    }
}
