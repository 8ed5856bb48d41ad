package io.nsc.trino.delete;

import io.trino.spi.TrinoException;

import java.util.BitSet;

import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;

/** The rows of one file a DELETE's sink received, by their positions in the file. */
final class DeletedRows
{
    private final String fileId;
    private final BitSet positions = new BitSet();

    DeletedRows(String fileId)
    {
        this.fileId = fileId;
    }

    void add(long position)
    {
        if (position < 0 || position > Integer.MAX_VALUE - 1) {
            throw new TrinoException(NOT_SUPPORTED, "Cannot delete row %s of nsc file %s: files of more than %s rows are not supported".formatted(position, fileId, Integer.MAX_VALUE));
        }
        positions.set((int) position);
    }

    boolean contains(long position)
    {
        return position >= 0 && position < Integer.MAX_VALUE && positions.get((int) position);
    }

    /** Rows deleted in all, each counted once however often the engine sent it. */
    long count()
    {
        return positions.cardinality();
    }

    /** Rows deleted among the {@code rows} rows from position {@code first}. */
    long countIn(long first, long rows)
    {
        long count = 0;
        int end = (int) Math.min(Integer.MAX_VALUE, first + rows);
        for (int position = positions.nextSetBit((int) Math.min(Integer.MAX_VALUE, first)); position >= 0 && position < end; position = positions.nextSetBit(position + 1)) {
            count++;
        }
        return count;
    }
}
