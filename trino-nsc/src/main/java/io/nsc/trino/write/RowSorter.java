package io.nsc.trino.write;

import com.google.common.collect.AbstractIterator;
import com.google.common.collect.ImmutableList;
import com.google.common.primitives.Ints;
import io.trino.spi.Page;
import io.trino.spi.PageBuilder;
import io.trino.spi.block.Block;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;
import it.unimi.dsi.fastutil.longs.LongArrays;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.util.Iterator;
import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Throwables.throwIfUnchecked;
import static io.trino.spi.connector.SortOrder.ASC_NULLS_LAST;
import static io.trino.spi.function.InvocationConvention.InvocationArgumentConvention.BLOCK_POSITION;
import static io.trino.spi.function.InvocationConvention.InvocationReturnConvention.FAIL_ON_NULL;
import static io.trino.spi.function.InvocationConvention.simpleConvention;
import static java.util.Objects.requireNonNull;

/**
 * Sorts the rows of a set of pages by some of their columns, ascending with nulls last, as
 * {@code ORDER BY c1, c2, ...} would: the comparisons are the engine's own ordering operators
 * (NaN after every other double, char and decimal semantics, and so on), not ones written here.
 */
public final class RowSorter
{
    /** Memory a sort takes per row beyond the pages: the address array and the merge sort's copy of it. */
    public static final int SORT_BYTES_PER_ROW = 2 * Long.BYTES;

    private static final MethodType ORDERING_TYPE = MethodType.methodType(int.class, Block.class, int.class, Block.class, int.class);

    private final List<Type> types;
    private final int[] sortChannels;
    private final MethodHandle[] orderings;

    /**
     * @param types the type of every channel of the pages
     * @param sortChannels the channels to sort by, most significant first
     */
    public RowSorter(List<Type> types, List<Integer> sortChannels, TypeOperators typeOperators)
    {
        this.types = ImmutableList.copyOf(requireNonNull(types, "types is null"));
        this.sortChannels = Ints.toArray(requireNonNull(sortChannels, "sortChannels is null"));
        requireNonNull(typeOperators, "typeOperators is null");
        checkArgument(this.sortChannels.length > 0, "no sort channels");
        this.orderings = new MethodHandle[this.sortChannels.length];
        for (int i = 0; i < this.sortChannels.length; i++) {
            Type type = types.get(this.sortChannels[i]);
            checkArgument(type.isOrderable(), "type %s is not orderable", type);
            orderings[i] = typeOperators.getOrderingOperator(type, ASC_NULLS_LAST, simpleConvention(FAIL_ON_NULL, BLOCK_POSITION, BLOCK_POSITION))
                    .asType(ORDERING_TYPE);
        }
    }

    /**
     * The rows of {@code pages} in sorted order, as new pages of at most {@code pageSize}. Rows
     * that compare equal keep their input order. The input pages must stay unchanged until the
     * iterator is exhausted: output pages are copied from them lazily, one at a time.
     */
    public Iterator<Page> sort(List<Page> pages, PageSize pageSize)
    {
        requireNonNull(pageSize, "pageSize is null");
        List<Page> input = ImmutableList.copyOf(pages);
        long[] addresses = addresses(input);
        LongArrays.mergeSort(addresses, (left, right) -> compare(input, left, right));
        return new AbstractIterator<>()
        {
            private final PageBuilder builder = pageSize.newPageBuilder(types);
            private int next;

            @Override
            protected Page computeNext()
            {
                if (next == addresses.length) {
                    return endOfData();
                }
                while (next < addresses.length && !pageSize.isFull(builder)) {
                    appendRow(builder, input.get(pageOf(addresses[next])), positionOf(addresses[next]));
                    next++;
                }
                Page page = builder.build();
                builder.reset();
                return page;
            }
        };
    }

    // A row's address: its page's index in the high 32 bits, its position in the low 32.
    private static long[] addresses(List<Page> pages)
    {
        long rows = pages.stream().mapToLong(Page::getPositionCount).sum();
        checkArgument(rows <= Integer.MAX_VALUE - 8, "too many rows to sort at once: %s", rows);
        long[] addresses = new long[(int) rows];
        int next = 0;
        for (int page = 0; page < pages.size(); page++) {
            for (int position = 0; position < pages.get(page).getPositionCount(); position++) {
                addresses[next++] = ((long) page << 32) | position;
            }
        }
        return addresses;
    }

    private int compare(List<Page> pages, long left, long right)
    {
        return compare(pages.get(pageOf(left)), positionOf(left), pages.get(pageOf(right)), positionOf(right));
    }

    /**
     * Compares two rows by the sort channels: negative when the left row sorts first, zero when
     * they tie on every sort channel.
     */
    public int compare(Page leftPage, int leftPosition, Page rightPage, int rightPosition)
    {
        for (int i = 0; i < sortChannels.length; i++) {
            Block leftBlock = leftPage.getBlock(sortChannels[i]);
            Block rightBlock = rightPage.getBlock(sortChannels[i]);
            int result;
            try {
                result = (int) orderings[i].invokeExact(leftBlock, leftPosition, rightBlock, rightPosition);
            }
            catch (Throwable t) {
                throwIfUnchecked(t);
                throw new RuntimeException(t);
            }
            if (result != 0) {
                return result;
            }
        }
        return 0;
    }

    /** Copies one row of {@code page}, every channel, to the end of {@code builder}. */
    public void appendRow(PageBuilder builder, Page page, int position)
    {
        builder.declarePosition();
        for (int channel = 0; channel < types.size(); channel++) {
            types.get(channel).appendTo(page.getBlock(channel), position, builder.getBlockBuilder(channel));
        }
    }

    public List<Type> types()
    {
        return types;
    }

    private static int pageOf(long address)
    {
        return (int) (address >>> 32);
    }

    private static int positionOf(long address)
    {
        return (int) address;
    }
}
