package io.nsc.storage.scan;

import io.nsc.parquet.aggregate.GroupedAggregation;
import io.nsc.parquet.topn.TopNRows;
import io.trino.spi.Page;

import java.io.IOException;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A scan's rows folded into an aggregation's groups or a top-N's rows under the memory budget.
 * The groups or rows may take a share of the budget; when they would take more, the fold hands
 * out what they hold (partial states, or the best rows so far) and goes on with empty ones: the
 * worker merges partial states of one group sent twice, and Trino's top-N picks the first rows of
 * all sent, so a scan of more groups than expected costs rows sent, not the query.
 */
final class ScanFold
{
    private static final int RESULT_PAGE_ROWS = 8192;

    /** The scan's filtered pages, null after the last. */
    interface Input
    {
        Page nextPage()
                throws IOException;
    }

    private final Optional<ScanPlan.Aggregation> aggregation;
    private final Optional<TopNRows> topN;
    // an input page the aggregation or top-N has taken rows of up to pendingPosition, before it filled up
    private Page pending;
    private int pendingPosition;
    // the aggregation or top-N hands out what it holds: it filled up, or the input ended
    private boolean draining;
    private boolean inputEnded;
    private long earlyFlushes;

    ScanFold(Optional<ScanPlan.Aggregation> aggregation, Optional<TopNRows> topN)
    {
        this.aggregation = requireNonNull(aggregation, "aggregation is null");
        this.topN = requireNonNull(topN, "topN is null");
        checkArgument(aggregation.isPresent() != topN.isPresent(), "one of an aggregation and a top-N");
    }

    /** What the plan folds into, if anything: empty for a scan that sends its rows as they are. */
    static Optional<ScanFold> of(ScanPlan plan)
    {
        return plan.aggregation().isEmpty() && plan.topN().isEmpty() ? Optional.empty() : Optional.of(new ScanFold(plan.aggregation(), plan.topN()));
    }

    /**
     * The next page to send, once the groups or rows filled up or the input ended; null when
     * nothing is left.
     *
     * @param input ends early (null) when the call is cancelled
     */
    Page nextOutputPage(Input input)
            throws IOException
    {
        while (true) {
            if (draining) {
                Optional<Page> held = takeHeld();
                if (held.isPresent()) {
                    return held.get();
                }
                if (inputEnded) {
                    return null;
                }
                draining = false;
            }
            fold(input);
        }
    }

    /** Times the groups or rows filled up and were sent before the input ended. */
    long earlyFlushes()
    {
        return earlyFlushes;
    }

    /** Folds input rows into the groups or the heap until they fill up or the input ends. */
    private void fold(Input input)
            throws IOException
    {
        while (!draining) {
            if (pending == null) {
                Page page = input.nextPage();
                if (page == null) {
                    inputEnded = true;
                    draining = true;
                    return;
                }
                pending = page;
                pendingPosition = 0;
            }
            pendingPosition = aggregation.isPresent()
                    ? aggregation.get().groups().addInput(pending, aggregation.get().groupChannels(), aggregation.get().inputChannels(), pendingPosition)
                    : topN.orElseThrow().add(pending, pendingPosition);
            if (pendingPosition == pending.getPositionCount()) {
                pending = null;
            }
            else {
                // full: send what is held, then go on with the rest of this page
                earlyFlushes++;
                draining = true;
            }
        }
    }

    /** A page of what the aggregation or top-N holds, which gives those rows up; empty once nothing is held. */
    private Optional<Page> takeHeld()
    {
        if (aggregation.isPresent()) {
            GroupedAggregation groups = aggregation.get().groups();
            return groups.groupCount() == 0 ? Optional.empty() : Optional.of(groups.takePartialPage(RESULT_PAGE_ROWS));
        }
        TopNRows rows = topN.orElseThrow();
        return rows.hasRows() ? Optional.of(rows.takeRows(RESULT_PAGE_ROWS)) : Optional.empty();
    }
}
