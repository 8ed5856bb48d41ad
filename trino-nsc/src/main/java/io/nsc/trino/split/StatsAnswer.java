package io.nsc.trino.split;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * The partial state of a global aggregation over row groups the coordinator answered from
 * compact stats alone: per aggregate a count, or a min/max value (null when those row groups
 * hold no value).
 *
 * @param values one per aggregate, in the aggregation's order; null entries allowed
 */
public record StatsAnswer(long rowGroups, List<Long> values)
{
    public StatsAnswer
    {
        checkArgument(rowGroups > 0, "an answer covers at least one row group");
        values = Collections.unmodifiableList(new ArrayList<>(requireNonNull(values, "values is null")));
    }
}
