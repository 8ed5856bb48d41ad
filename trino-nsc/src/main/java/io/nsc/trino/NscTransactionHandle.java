package io.nsc.trino;

import io.trino.spi.connector.ConnectorTransactionHandle;

/**
 * Reads see the table version resolved at planning time, so a transaction needs no state of its own.
 */
public enum NscTransactionHandle
        implements ConnectorTransactionHandle
{
    INSTANCE
}
