package io.nsc.trino.write;

import com.google.common.collect.AbstractIterator;
import io.trino.spi.Page;
import io.trino.spi.PageBuilder;

import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;

import static java.util.Objects.requireNonNull;

/**
 * Merges inputs that are each sorted into one sorted sequence of pages, as {@link RowSorter}
 * orders rows. Rows that compare equal come in input order (all of the first input's, then the
 * second's, ...), so merging consecutive runs of a stable sort keeps it stable. Holds one page
 * of each input and the page being built.
 */
public final class SortedRunMerger
        extends AbstractIterator<Page>
{
    private final RowSorter sorter;
    private final PageSize pageSize;
    private final PageBuilder builder;
    private final PriorityQueue<Cursor> cursors;

    public SortedRunMerger(RowSorter sorter, List<? extends Iterator<Page>> sortedInputs, PageSize pageSize)
    {
        this.sorter = requireNonNull(sorter, "sorter is null");
        this.pageSize = requireNonNull(pageSize, "pageSize is null");
        this.builder = pageSize.newPageBuilder(sorter.types());
        this.cursors = new PriorityQueue<>(Math.max(1, sortedInputs.size()), this::compare);
        for (int input = 0; input < sortedInputs.size(); input++) {
            Cursor cursor = new Cursor(input, sortedInputs.get(input));
            if (cursor.advance()) {
                cursors.add(cursor);
            }
        }
    }

    /** The pages held: each input's current page and the output page being built. */
    public long retainedBytes()
    {
        long bytes = builder.getRetainedSizeInBytes();
        for (Cursor cursor : cursors) {
            bytes += cursor.page.getRetainedSizeInBytes();
        }
        return bytes;
    }

    @Override
    protected Page computeNext()
    {
        while (!cursors.isEmpty() && !pageSize.isFull(builder)) {
            Cursor smallest = cursors.poll();
            sorter.appendRow(builder, smallest.page, smallest.position);
            if (smallest.advance()) {
                cursors.add(smallest);
            }
        }
        if (builder.isEmpty()) {
            return endOfData();
        }
        Page page = builder.build();
        builder.reset();
        return page;
    }

    private int compare(Cursor left, Cursor right)
    {
        int result = sorter.compare(left.page, left.position, right.page, right.position);
        return result != 0 ? result : Integer.compare(left.input, right.input);
    }

    private static final class Cursor
    {
        private final int input;
        private final Iterator<Page> pages;
        private Page page;
        private int position = -1;

        private Cursor(int input, Iterator<Page> pages)
        {
            this.input = input;
            this.pages = requireNonNull(pages, "pages is null");
        }

        /** Moves to the next row, reading the next page when this one is done; false at the end of the input. */
        private boolean advance()
        {
            position++;
            while (page == null || position == page.getPositionCount()) {
                if (!pages.hasNext()) {
                    page = null;
                    return false;
                }
                page = pages.next();
                position = 0;
            }
            return true;
        }
    }
}
