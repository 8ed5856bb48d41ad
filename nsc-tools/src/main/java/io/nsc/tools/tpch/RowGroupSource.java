package io.nsc.tools.tpch;

import io.trino.spi.Page;

import java.io.Closeable;
import java.io.IOException;

/** Hands out a table's rows in the order they are written, one row group at a time. */
interface RowGroupSource
        extends Closeable
{
    /** The next at most {@code maxRows} rows, or null when there are none left. */
    Page next(int maxRows)
            throws IOException;

    /** Releases what the source holds (files on disk included); also after a failure. */
    @Override
    default void close()
            throws IOException {}
}
