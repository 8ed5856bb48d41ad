package io.nsc.storage.server;

import io.nsc.parquet.wire.RequestLimits;
import io.nsc.protocol.parquet.ParquetLimits;
import io.nsc.storage.scan.ScanLimits;

import static java.lang.Math.toIntExact;

/** The limits of {@link StorageConfig} as the components that enforce them take them. */
final class StorageLimits
{
    private StorageLimits() {}

    static ParquetLimits parquet(StorageConfig config)
    {
        return new ParquetLimits(toIntExact(config.getMaxFooterSize().toBytes()), toIntExact(config.getMaxPageSize().toBytes()));
    }

    static ScanLimits scan(StorageConfig config)
    {
        return new ScanLimits(
                config.getMaxRequestSize().toBytes(),
                config.getMaxScanRowGroups(),
                new RequestLimits(config.getMaxExpressionNodes(), config.getMaxExpressionDepth(), config.getMaxPredicateValueSize().toBytes()),
                config.getScanMemoryLimit().toBytes(),
                config.getScanAdmissionReservation().toBytes());
    }
}
