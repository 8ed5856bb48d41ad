package io.nsc.trino.read;

import com.google.common.collect.ImmutableMap;
import io.nsc.parquet.scan.FilteredScan;
import io.nsc.parquet.scan.ParquetScanReader;
import io.trino.memory.context.AggregatedMemoryContext;
import io.trino.parquet.ParquetCorruptionException;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metric;
import io.trino.spi.metrics.Metrics;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.OptionalLong;

import static io.nsc.trino.NscErrorCode.NSC_BAD_DATA;
import static java.util.Objects.requireNonNull;

/**
 * A raw split: the worker decodes the row groups with trino-parquet's reader from byte ranges
 * it fetches from storage nodes. Either every row comes back with its columns decoded only when
 * the engine uses them ({@link #decoding}), or, for a table whose predicate nsc enforces, the
 * rows pass the same row filter and limit a storage node would apply ({@link #filtering}), so a
 * split returns the same rows whichever way it is read. Completed bytes are the bytes received
 * from storage nodes, so Trino's physical input shows what crossed the network.
 */
public final class NscPageSource
        implements ConnectorPageSource
{
    /** Where the pages come from. */
    private interface Pages
            extends Closeable
    {
        /** The next page, null at the end. */
        SourcePage next()
                throws IOException;

        /** Metrics beyond the bytes and requests every raw read reports. */
        Map<String, Metric<?>> metrics();
    }

    private final Pages pages;
    private final RemoteParquetDataSource dataSource;
    private final AggregatedMemoryContext memoryContext;
    private final String fileId;
    private long completedPositions;
    private boolean finished;

    private NscPageSource(Pages pages, RemoteParquetDataSource dataSource, AggregatedMemoryContext memoryContext, String fileId)
    {
        this.pages = requireNonNull(pages, "pages is null");
        this.dataSource = requireNonNull(dataSource, "dataSource is null");
        this.memoryContext = requireNonNull(memoryContext, "memoryContext is null");
        this.fileId = requireNonNull(fileId, "fileId is null");
    }

    public static NscPageSource decoding(ParquetScanReader reader, RemoteParquetDataSource dataSource, AggregatedMemoryContext memoryContext, String fileId)
    {
        return new NscPageSource(new Pages()
        {
            @Override
            public SourcePage next()
                    throws IOException
            {
                return reader.nextPage();
            }

            @Override
            public Map<String, Metric<?>> metrics()
            {
                return Map.of();
            }

            @Override
            public void close()
                    throws IOException
            {
                reader.close();
            }
        }, dataSource, memoryContext, fileId);
    }

    public static NscPageSource filtering(FilteredScan scan, RemoteParquetDataSource dataSource, AggregatedMemoryContext memoryContext, String fileId)
    {
        return new NscPageSource(new Pages()
        {
            @Override
            public SourcePage next()
                    throws IOException
            {
                Page page = scan.nextPage();
                return page == null ? null : SourcePage.create(page);
            }

            @Override
            public Map<String, Metric<?>> metrics()
            {
                return ImmutableMap.of(
                        ReadMetrics.WORKER_ROWS_DECODED, new LongCount(scan.rowsScanned()),
                        ReadMetrics.WORKER_ROWS_RETURNED, new LongCount(scan.rowsReturned()));
            }

            @Override
            public void close()
                    throws IOException
            {
                scan.close();
            }
        }, dataSource, memoryContext, fileId);
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        if (finished) {
            return null;
        }
        SourcePage page;
        try {
            page = pages.next();
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
        return new Metrics(ImmutableMap.<String, Metric<?>>builder()
                .put(ReadMetrics.SPLITS_RAW, new LongCount(1))
                .put(ReadMetrics.STORAGE_BYTES_RECEIVED, new LongCount(dataSource.getReadBytes()))
                .put(ReadMetrics.STORAGE_BYTES_READ_FROM_DISK, new LongCount(dataSource.getReadBytes()))
                .put(ReadMetrics.STORAGE_READ_REQUESTS, new LongCount(dataSource.getReadRequests()))
                .put(ReadMetrics.STORAGE_FOOTER_BYTES_RECEIVED, new LongCount(dataSource.getFooterBytes()))
                .put(ReadMetrics.STORAGE_REPLICA_FAILOVERS, new LongCount(dataSource.getReplicaFailovers()))
                .putAll(pages.metrics())
                .buildOrThrow());
    }

    @Override
    public void close()
    {
        if (finished) {
            return;
        }
        finished = true;
        try {
            pages.close();
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
