package io.nsc.trino.delete;

import io.trino.spi.connector.ConnectorPartitioningHandle;

/**
 * How a row-level DELETE's rows reach its merge sinks: by file, so that one sink sees every
 * deleted row of a file and can tell whether the file loses all its rows, whole row groups or
 * some rows (see {@link NscMergeSink}).
 */
public enum NscDeletePartitioningHandle
        implements ConnectorPartitioningHandle
{
    INSTANCE
}
