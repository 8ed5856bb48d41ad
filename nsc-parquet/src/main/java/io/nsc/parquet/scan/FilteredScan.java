package io.nsc.parquet.scan;

import com.google.common.collect.ImmutableList;
import io.nsc.parquet.expression.ValueExpression;
import io.nsc.parquet.filter.RowFilter;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.connector.SourcePage;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static java.lang.Math.min;
import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * Decoded pages of a scan with the predicate applied, only the output channels kept and at most
 * {@code limit} rows in all. Columns that only the predicate reads are decoded for every row
 * but never leave; output columns are materialized only for the rows that passed.
 */
public final class FilteredScan
        implements Closeable
{
    private final ParquetScanReader reader;
    private final List<ValueExpression> computed;
    private final RowFilter filter;
    private final int[] outputChannels;
    private final long limit;
    // the computed values reading each other's channels, once the decoded channels are known
    private List<ValueExpression> shared;
    private int[] positions = new int[0];
    private long rowsScanned;
    private long rowsReturned;
    private boolean finished;

    public FilteredScan(ParquetScanReader reader, RowFilter filter, int[] outputChannels, long limit)
    {
        this(reader, List.of(), filter, outputChannels, limit);
    }

    /**
     * @param computed values computed from the decoded columns, the channels after them: the
     * filter and the output may name them
     * @param limit the most rows to return, {@link Long#MAX_VALUE} for all
     */
    public FilteredScan(ParquetScanReader reader, List<ValueExpression> computed, RowFilter filter, int[] outputChannels, long limit)
    {
        this.reader = requireNonNull(reader, "reader is null");
        this.computed = ImmutableList.copyOf(computed);
        this.filter = requireNonNull(filter, "filter is null");
        this.outputChannels = outputChannels.clone();
        checkArgument(limit >= 0, "limit is negative");
        this.limit = limit;
        this.finished = filter.isNone() || limit == 0;
    }

    /**
     * The next page with at least one row, or null when the scan is done.
     */
    public Page nextPage()
            throws IOException
    {
        while (!finished) {
            SourcePage page = reader.nextPage();
            if (page == null) {
                finished = true;
                return null;
            }
            if (!computed.isEmpty()) {
                if (shared == null) {
                    shared = SharedSubexpressions.share(computed, page.getChannelCount());
                }
                page = new ComputedColumnsSourcePage(page, shared);
            }
            rowsScanned += page.getPositionCount();
            int selected = select(page);
            if (selected == 0) {
                continue;
            }
            long remaining = limit - rowsReturned;
            int kept = toIntExact(min(selected, remaining));
            if (kept < page.getPositionCount()) {
                page.selectPositions(positions, 0, kept);
            }
            rowsReturned += kept;
            if (rowsReturned == limit) {
                finished = true;
            }
            return project(page);
        }
        return null;
    }

    private int select(SourcePage page)
    {
        int count = page.getPositionCount();
        if (positions.length < count) {
            positions = new int[count];
        }
        if (filter.isAll()) {
            for (int position = 0; position < count; position++) {
                positions[position] = position;
            }
            return count;
        }
        return filter.select(page, positions);
    }

    private Page project(SourcePage page)
    {
        Block[] blocks = new Block[outputChannels.length];
        for (int i = 0; i < outputChannels.length; i++) {
            blocks[i] = page.getBlock(outputChannels[i]);
        }
        return new Page(page.getPositionCount(), blocks);
    }

    public long rowsScanned()
    {
        return rowsScanned;
    }

    public long rowsReturned()
    {
        return rowsReturned;
    }

    @Override
    public void close()
            throws IOException
    {
        finished = true;
        reader.close();
    }
}
