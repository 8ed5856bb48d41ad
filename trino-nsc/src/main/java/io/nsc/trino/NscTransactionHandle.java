package io.nsc.trino;

import io.trino.spi.connector.ConnectorTransactionHandle;

import java.util.UUID;

import static java.util.Objects.requireNonNull;

/**
 * One transaction: the connector keeps, per transaction, the table versions its queries planned
 * (see {@link io.nsc.trino.metadata.NscMetadata#getTableHandle}), so that every reference to a
 * table in it reads the same version.
 */
public record NscTransactionHandle(UUID uuid)
        implements ConnectorTransactionHandle
{
    public NscTransactionHandle
    {
        requireNonNull(uuid, "uuid is null");
    }

    public static NscTransactionHandle create()
    {
        return new NscTransactionHandle(UUID.randomUUID());
    }
}
