package io.nsc.tools.tpch;

import io.airlift.slice.OutputStreamSliceOutput;
import io.airlift.slice.SliceOutput;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.WRITE;
import static java.util.Objects.requireNonNull;

/**
 * Writes one sorted run of a table into a file of its own, for {@link SortedRunReader}.
 *
 * <p>The file is a sequence of groups, each holding rows with one key value: the key and the
 * group's row count (little-endian 32-bit integers), then the rows in the order written. A row is
 * its columns in table order: identifiers in 8 bytes, integers and dates in 4, doubles in 8
 * (IEEE 754 bits), strings as their UTF-8 length (unsigned LEB128) and bytes. Keys never decrease
 * from one group to the next, but may repeat: a merge of runs writes one group per group it read.
 *
 * <p>Nothing is compressed: a run is read back once, soon after, and deleted, so the page cache
 * usually serves it, and compressing would cost the generator's CPU twice.
 */
final class SortedRunWriter
        implements Closeable
{
    private static final int BUFFER_BYTES = 1 << 16;

    private final Path file;
    private final SliceOutput output;
    private long rowCount;
    private int lastKey = Integer.MIN_VALUE;
    private boolean closed;

    /** Creates the file, which must not exist yet. */
    SortedRunWriter(Path file)
            throws IOException
    {
        this.file = requireNonNull(file, "file is null");
        this.output = new OutputStreamSliceOutput(Files.newOutputStream(file, CREATE_NEW, WRITE), BUFFER_BYTES);
    }

    /** Writes the rows {@code order[from] .. order[to - 1]} of the buffer, all with the given key, as one group. */
    void writeGroup(int key, TpchRowBuffer<?> rows, int[] order, int from, int to)
    {
        startGroup(key, to - from);
        for (int i = from; i < to; i++) {
            rows.writeRow(order[i], output);
        }
    }

    /** Copies the rest of the reader's current group as one group. */
    void copyGroup(SortedRunReader reader)
    {
        int rows = reader.groupRowsLeft();
        startGroup(reader.groupKey(), rows);
        for (int i = 0; i < rows; i++) {
            reader.copyRow(output);
        }
    }

    private void startGroup(int key, int rows)
    {
        checkState(!closed, "run %s is closed", file);
        checkArgument(rows > 0, "a group needs rows: %s", rows);
        checkArgument(key >= lastKey, "group keys must not decrease: %s after %s", key, lastKey);
        output.writeInt(key);
        output.writeInt(rows);
        lastKey = key;
        rowCount += rows;
    }

    /** Writes what is buffered and closes the file: the run it now holds. */
    SortedRun finish()
            throws IOException
    {
        checkState(!closed, "run %s is closed", file);
        close();
        return new SortedRun(file, rowCount, Files.size(file));
    }

    /** Closes the file; after a failure the run is incomplete and only fit for deletion. */
    @Override
    public void close()
            throws IOException
    {
        if (closed) {
            return;
        }
        closed = true;
        output.close();
    }

    static void writeLength(SliceOutput output, int length)
    {
        checkArgument(length >= 0, "length is negative: %s", length);
        int rest = length;
        while ((rest & ~0x7F) != 0) {
            output.writeByte((rest & 0x7F) | 0x80);
            rest >>>= 7;
        }
        output.writeByte(rest);
    }
}
