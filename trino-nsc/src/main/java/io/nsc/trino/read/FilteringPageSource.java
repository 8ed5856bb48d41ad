package io.nsc.trino.read;

import com.google.common.collect.ImmutableMap;
import io.nsc.parquet.scan.FilteredScan;
import io.trino.parquet.ParquetCorruptionException;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.OptionalLong;

import static io.nsc.trino.NscErrorCode.NSC_BAD_DATA;
import static java.util.Objects.requireNonNull;

/**
 * A raw split of a table whose predicate the connector enforces: the worker decodes the byte
 * ranges and applies the same row filter (and limit) a storage node would, so every split
 * returns the same rows whichever way it is read.
 */
public class FilteringPageSource
        implements ConnectorPageSource
{
    private final FilteredScan scan;
    private final RemoteParquetDataSource dataSource;
    private final String fileId;
    private boolean finished;

    public FilteringPageSource(FilteredScan scan, RemoteParquetDataSource dataSource, String fileId)
    {
        this.scan = requireNonNull(scan, "scan is null");
        this.dataSource = requireNonNull(dataSource, "dataSource is null");
        this.fileId = requireNonNull(fileId, "fileId is null");
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        if (finished) {
            return null;
        }
        Page page;
        try {
            page = scan.nextPage();
        }
        catch (TrinoException e) {
            closeQuietly();
            throw e;
        }
        catch (ParquetCorruptionException e) {
            closeQuietly();
            throw new TrinoException(NSC_BAD_DATA, "Corrupt Parquet data in nsc file %s: %s".formatted(fileId, e.getMessage()), e);
        }
        catch (IOException | RuntimeException e) {
            closeQuietly();
            throw new TrinoException(NSC_BAD_DATA, "Cannot decode nsc file %s: %s".formatted(fileId, e.getMessage()), e);
        }
        if (page == null) {
            close();
            return null;
        }
        return SourcePage.create(page);
    }

    @Override
    public long getCompletedBytes()
    {
        return dataSource.getReadBytes();
    }

    @Override
    public OptionalLong getCompletedPositions()
    {
        return OptionalLong.of(scan.rowsReturned());
    }

    @Override
    public long getReadTimeNanos()
    {
        return dataSource.getReadTimeNanos();
    }

    @Override
    public boolean isFinished()
    {
        return finished;
    }

    @Override
    public long getMemoryUsage()
    {
        return 0;
    }

    @Override
    public Metrics getMetrics()
    {
        return new Metrics(ImmutableMap.of(
                ReadMetrics.SPLITS_RAW, new LongCount(1),
                ReadMetrics.STORAGE_BYTES_RECEIVED, new LongCount(dataSource.getReadBytes()),
                ReadMetrics.STORAGE_BYTES_READ_FROM_DISK, new LongCount(dataSource.getReadBytes()),
                ReadMetrics.STORAGE_READ_REQUESTS, new LongCount(dataSource.getReadRequests()),
                ReadMetrics.STORAGE_REPLICA_FAILOVERS, new LongCount(dataSource.getReplicaFailovers()),
                ReadMetrics.WORKER_ROWS_DECODED, new LongCount(scan.rowsScanned()),
                ReadMetrics.WORKER_ROWS_RETURNED, new LongCount(scan.rowsReturned())));
    }

    @Override
    public void close()
    {
        if (finished) {
            return;
        }
        finished = true;
        try {
            scan.close();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void closeQuietly()
    {
        try {
            close();
        }
        catch (RuntimeException _) {
            // the original failure is what the user needs to see
        }
    }
}
