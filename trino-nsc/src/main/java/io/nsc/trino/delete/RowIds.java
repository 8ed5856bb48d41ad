package io.nsc.trino.delete;

import io.airlift.slice.Slice;
import io.trino.spi.block.Block;
import io.trino.spi.block.RowBlock;
import io.trino.spi.block.RunLengthEncodedBlock;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;

/** Reads and builds blocks of {@link NscRowIdColumnHandle} row ids. */
public final class RowIds
{
    private RowIds() {}

    /** The row ids of rows of one file, from their positions in it (a bigint block). */
    public static Block of(String fileId, Block rowPositions)
    {
        Block fileIds = RunLengthEncodedBlock.create(VARCHAR, utf8Slice(fileId), rowPositions.getPositionCount());
        return RowBlock.fromFieldBlocks(rowPositions.getPositionCount(), new Block[] {fileIds, rowPositions});
    }

    public static Slice fileId(Block rowIds, int position)
    {
        return VARCHAR.getSlice(field(rowIds, NscRowIdColumnHandle.FILE_ID_FIELD), rowIds.getUnderlyingValuePosition(position));
    }

    public static long rowPosition(Block rowIds, int position)
    {
        return BIGINT.getLong(field(rowIds, NscRowIdColumnHandle.ROW_POSITION_FIELD), rowIds.getUnderlyingValuePosition(position));
    }

    private static Block field(Block rowIds, int field)
    {
        // the engine may hand the row ids on wrapped (a dictionary, a run): the rows are those of the underlying block
        return ((RowBlock) rowIds.getUnderlyingValueBlock()).getFieldBlock(field);
    }
}
