package io.nsc.parquet.filter;

import io.trino.spi.block.Block;

/**
 * The test of one column's values against its domain.
 */
interface ColumnFilter
{
    /**
     * Keeps, among the first {@code count} entries of {@code positions}, those whose value in
     * {@code block} passes, compacting them to the front in order; returns how many passed.
     */
    int filter(Block block, int[] positions, int count);
}
