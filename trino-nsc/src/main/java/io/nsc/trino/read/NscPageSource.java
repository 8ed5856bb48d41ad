package io.nsc.trino.read;

import com.google.common.collect.ImmutableMap;
import io.trino.memory.context.AggregatedMemoryContext;
import io.trino.parquet.ParquetCorruptionException;
import io.trino.parquet.reader.ParquetReader;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.UnaryOperator;

import static io.nsc.trino.NscErrorCode.NSC_BAD_DATA;
import static java.util.Objects.requireNonNull;

/**
 * Decodes the row groups of one split with trino-parquet's reader. Completed bytes are the bytes
 * received from storage nodes, so Trino's physical input shows what crossed the network.
 */
public class NscPageSource
        implements ConnectorPageSource
{
    private final ParquetReader reader;
    private final RemoteParquetDataSource dataSource;
    private final AggregatedMemoryContext memoryContext;
    private final String fileId;
    private final List<Optional<UnaryOperator<Block>>> conversions;
    private long completedPositions;
    private boolean finished;

    public NscPageSource(
            ParquetReader reader,
            RemoteParquetDataSource dataSource,
            AggregatedMemoryContext memoryContext,
            String fileId,
            List<Optional<UnaryOperator<Block>>> conversions)
    {
        this.reader = requireNonNull(reader, "reader is null");
        this.dataSource = requireNonNull(dataSource, "dataSource is null");
        this.memoryContext = requireNonNull(memoryContext, "memoryContext is null");
        this.fileId = requireNonNull(fileId, "fileId is null");
        this.conversions = List.copyOf(conversions);
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
        return new NscSourcePage(page, fileId, conversions);
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
                "storage_bytes_received", new LongCount(dataSource.getReadBytes()),
                "storage_read_requests", new LongCount(dataSource.getReadRequests()),
                "storage_replica_failovers", new LongCount(dataSource.getReplicaFailovers())));
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
