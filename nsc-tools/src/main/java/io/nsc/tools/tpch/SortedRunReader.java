package io.nsc.tools.tpch;

import io.airlift.slice.InputStreamSliceInput;
import io.airlift.slice.SliceInput;
import io.airlift.slice.SliceOutput;
import io.airlift.slice.Slices;
import io.trino.spi.PageBuilder;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;

import static com.google.common.base.Preconditions.checkState;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static java.util.Objects.requireNonNull;

/**
 * Reads a run file of {@link SortedRunWriter} group by group, row by row: into a page, or
 * copied unchanged into another run.
 */
final class SortedRunReader
        implements Closeable
{
    private static final int BUFFER_BYTES = 1 << 16;

    private final SortedRun run;
    private final List<ColumnDecoder> columns;
    private final SliceInput input;
    private byte[] stringBuffer = new byte[256];
    private long rowsRead;
    private int groupKey;
    private int groupRowsLeft;

    /**
     * @param types the Trino types of the table's columns, in table order
     */
    SortedRunReader(SortedRun run, List<Type> types)
            throws IOException
    {
        this.run = requireNonNull(run, "run is null");
        this.columns = types.stream().map(ColumnDecoder::forType).collect(toImmutableList());
        this.input = new InputStreamSliceInput(Files.newInputStream(run.file()), BUFFER_BYTES);
    }

    /**
     * Moves to the next group; false when the run has no more. The current group must have been
     * read to its end.
     */
    boolean nextGroup()
    {
        checkState(groupRowsLeft == 0, "%s rows of the group with key %s of %s are unread", groupRowsLeft, groupKey, run.file());
        if (!input.isReadable()) {
            if (rowsRead != run.rowCount()) {
                throw corrupt("ends after %s rows, %s were written".formatted(rowsRead, run.rowCount()));
            }
            return false;
        }
        groupKey = input.readInt();
        groupRowsLeft = input.readInt();
        if (groupRowsLeft <= 0 || rowsRead + groupRowsLeft > run.rowCount()) {
            throw corrupt("has a group of %s rows after %s of %s rows".formatted(groupRowsLeft, rowsRead, run.rowCount()));
        }
        return true;
    }

    int groupKey()
    {
        return groupKey;
    }

    int groupRowsLeft()
    {
        return groupRowsLeft;
    }

    /** Appends the next row of the current group to the page. */
    void readRow(PageBuilder page)
    {
        startRow();
        for (int column = 0; column < columns.size(); column++) {
            columns.get(column).read(this, page.getBlockBuilder(column));
        }
        page.declarePosition();
    }

    /** Writes the next row of the current group to another run, in the same layout. */
    void copyRow(SliceOutput output)
    {
        startRow();
        for (ColumnDecoder column : columns) {
            column.copy(this, output);
        }
    }

    private void startRow()
    {
        checkState(groupRowsLeft > 0, "the group with key %s of %s has no rows left", groupKey, run.file());
        groupRowsLeft--;
        rowsRead++;
    }

    @Override
    public void close()
            throws IOException
    {
        input.close();
    }

    private int readString()
    {
        int length = readLength();
        if (length > stringBuffer.length) {
            stringBuffer = new byte[Math.max(length, stringBuffer.length * 2)];
        }
        input.readBytes(stringBuffer, 0, length);
        return length;
    }

    private int readLength()
    {
        int length = 0;
        for (int shift = 0; shift < Integer.SIZE; shift += 7) {
            int next = input.readUnsignedByte();
            length |= (next & 0x7F) << shift;
            if ((next & 0x80) == 0) {
                if (length < 0) {
                    break;
                }
                return length;
            }
        }
        throw corrupt("has a string length that does not fit in 31 bits");
    }

    private UncheckedIOException corrupt(String problem)
    {
        // only a failed write or a change from outside produces this: the generator wrote the file itself
        return new UncheckedIOException(new IOException("Sort run %s %s".formatted(run.file(), problem)));
    }

    /** How one column's values are laid out in a run, by the column's Trino type. */
    private enum ColumnDecoder
    {
        LONG {
            @Override
            void read(SortedRunReader reader, BlockBuilder builder)
            {
                BIGINT.writeLong(builder, reader.input.readLong());
            }

            @Override
            void copy(SortedRunReader reader, SliceOutput output)
            {
                output.writeLong(reader.input.readLong());
            }
        },
        INT {
            @Override
            void read(SortedRunReader reader, BlockBuilder builder)
            {
                // INTEGER and DATE are both 32-bit integers in a block
                INTEGER.writeLong(builder, reader.input.readInt());
            }

            @Override
            void copy(SortedRunReader reader, SliceOutput output)
            {
                output.writeInt(reader.input.readInt());
            }
        },
        FLOAT64 {
            @Override
            void read(SortedRunReader reader, BlockBuilder builder)
            {
                DOUBLE.writeDouble(builder, reader.input.readDouble());
            }

            @Override
            void copy(SortedRunReader reader, SliceOutput output)
            {
                output.writeDouble(reader.input.readDouble());
            }
        },
        STRING {
            @Override
            void read(SortedRunReader reader, BlockBuilder builder)
            {
                int length = reader.readString();
                // every varchar(n) writes its values the same way; the length limit is the generator's
                VarcharType.VARCHAR.writeSlice(builder, Slices.wrappedBuffer(reader.stringBuffer), 0, length);
            }

            @Override
            void copy(SortedRunReader reader, SliceOutput output)
            {
                int length = reader.readString();
                SortedRunWriter.writeLength(output, length);
                output.writeBytes(reader.stringBuffer, 0, length);
            }
        };

        abstract void read(SortedRunReader reader, BlockBuilder builder);

        abstract void copy(SortedRunReader reader, SliceOutput output);

        static ColumnDecoder forType(Type type)
        {
            if (type.equals(BIGINT)) {
                return LONG;
            }
            if (type.equals(INTEGER) || type.equals(DATE)) {
                return INT;
            }
            if (type.equals(DOUBLE)) {
                return FLOAT64;
            }
            if (type instanceof VarcharType) {
                return STRING;
            }
            throw new IllegalArgumentException("No run layout for type " + type);
        }
    }
}
