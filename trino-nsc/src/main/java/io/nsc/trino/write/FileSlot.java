package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;
import io.nsc.trino.metadata.NscColumnHandle;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalInt;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * One column of the files a write makes: the file's i-th column is the table's i-th slot, a live
 * column fed by a channel of the pages, or a dropped one written as NULL.
 *
 * @param channel the pages' channel of a live column; empty for a dropped one
 */
public record FileSlot(NscColumnHandle column, OptionalInt channel)
{
    // nsc's column names are lower-case letters, digits and underscores: this one is no column's
    private static final String DROPPED_NAME_PREFIX = "$dropped_";

    public FileSlot
    {
        requireNonNull(column, "column is null");
        requireNonNull(channel, "channel is null");
    }

    public boolean dropped()
    {
        return channel.isEmpty();
    }

    /** The column's name in the Parquet file: a dropped column's name may belong to a live one since. */
    public String fileColumnName()
    {
        return dropped() ? DROPPED_NAME_PREFIX + column.ordinal() : column.name();
    }

    /** The table's slots in file order. */
    public static List<FileSlot> of(NscWritableTable table)
    {
        int slotCount = table.columns().size() + table.droppedColumns().size();
        List<FileSlot> slots = new ArrayList<>(Collections.nCopies(slotCount, null));
        for (int channel = 0; channel < table.columns().size(); channel++) {
            place(slots, new FileSlot(table.columns().get(channel), OptionalInt.of(channel)));
        }
        for (NscColumnHandle dropped : table.droppedColumns()) {
            place(slots, new FileSlot(dropped, OptionalInt.empty()));
        }
        return ImmutableList.copyOf(slots);
    }

    private static void place(List<FileSlot> slots, FileSlot slot)
    {
        int ordinal = slot.column().ordinal();
        checkArgument(ordinal < slots.size() && slots.get(ordinal) == null, "column ordinals must number the slots 0 to %s once each, got %s", slots.size() - 1, slot.column());
        slots.set(ordinal, slot);
    }
}
