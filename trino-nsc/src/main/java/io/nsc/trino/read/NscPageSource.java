package io.nsc.trino.read;

import com.google.common.collect.ImmutableMap;
import io.nsc.parquet.scan.ParquetScanReader;
import io.trino.memory.context.AggregatedMemoryContext;
import io.trino.parquet.ParquetCorruptionException;
import io.trino.plugin.base.metrics.LongCount;
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
 * Decodes the row groups of one split with trino-parquet's reader, on the worker, from raw byte
 * ranges; columns are decoded only when the engine uses them. Completed bytes are the bytes
 * received from storage nodes, so Trino's physical input shows what crossed the network.
 */
public class NscPageSource
        implements ConnectorPageSource
{
    private final ParquetScanReader reader;
    private final RemoteParquetDataSource dataSource;
    private final AggregatedMemoryContext memoryContext;
    private final String fileId;
    private long completedPositions;
    private boolean finished;

    public NscPageSource(
            ParquetScanReader reader,
            RemoteParquetDataSource dataSource,
            AggregatedMemoryContext memoryContext,
            String fileId)
    {
        this.reader = requireNonNull(reader, "reader is null");
        this.dataSource = requireNonNull(dataSource, "dataSource is null");
        this.memoryContext = requireNonNull(memoryContext, "memoryContext is null");
        this.fileId = requireNonNull(fileId, "fileId is null");
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        if (finished) {
            return null;
        }
        SourcePage page;
        try {
            page = reader.nextPage();
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
        completedPositions += page.getPositionCount();
        return page;
    }

    @Override
    public long getCompletedBytes()
    {
        return dataSource.getReadBytes();
    }

    @Override
    public OptionalLong getCompletedPositions()
    {
        return OptionalLong.of(completedPositions);
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
        return memoryContext.getBytes();
    }

    @Override
    public Metrics getMetrics()
    {
        return new Metrics(ImmutableMap.of(
                ReadMetrics.SPLITS_RAW, new LongCount(1),
                ReadMetrics.STORAGE_BYTES_RECEIVED, new LongCount(dataSource.getReadBytes()),
                ReadMetrics.STORAGE_BYTES_READ_FROM_DISK, new LongCount(dataSource.getReadBytes()),
                ReadMetrics.STORAGE_READ_REQUESTS, new LongCount(dataSource.getReadRequests()),
                ReadMetrics.STORAGE_REPLICA_FAILOVERS, new LongCount(dataSource.getReplicaFailovers())));
    }

    @Override
    public void close()
    {
        if (finished) {
            return;
        }
        finished = true;
        try {
            reader.close();
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
