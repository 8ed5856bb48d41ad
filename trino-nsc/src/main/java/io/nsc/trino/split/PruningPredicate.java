package io.nsc.trino.split;

import com.google.common.collect.ImmutableList;
import io.nsc.protocol.predicate.ColumnPredicate;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What the coordinator prunes with. When part of the query's predicate has no stats keys (char,
 * uuid, ...), that part is left out: pruning stays correct, but a row group can then no longer be
 * called fully matching.
 */
public record PruningPredicate(List<ColumnPredicate> columns, boolean fullyTranslated)
{
    public PruningPredicate
    {
        columns = ImmutableList.copyOf(requireNonNull(columns, "columns is null"));
    }
}
