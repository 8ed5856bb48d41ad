package io.nsc.trino.read;

import com.google.common.cache.Cache;
import com.google.common.util.concurrent.UncheckedExecutionException;
import com.google.inject.Inject;
import io.nsc.parquet.FooterRetainedSize;
import io.nsc.trino.NscCacheStatsMBean;
import io.nsc.trino.NscConfig;
import io.trino.cache.EvictableCacheBuilder;
import io.trino.parquet.ParquetDataSource;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.reader.MetadataReader;
import io.trino.spi.TrinoException;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

import static io.nsc.trino.NscErrorCode.NSC_BAD_DATA;

/**
 * Parsed Parquet footers by file id. nsc files are immutable and ids are never reused, so an
 * entry never goes stale: a worker fetches each footer once while it stays in the cache. The
 * cache is bounded by the footers' estimated size on the heap ({@link FooterRetainedSize}), since a
 * footer of a file of many row groups and columns weighs a thousand times a small one's.
 */
public class FooterCache
{
    private final Cache<String, ParquetMetadata> footers;
    private final NscCacheStatsMBean stats;

    @Inject
    public FooterCache(NscConfig config)
    {
        footers = EvictableCacheBuilder.newBuilder()
                .maximumWeight(config.getFooterCacheMaxSize().toBytes())
                .weigher((String fileId, ParquetMetadata footer) -> (int) Math.min(Integer.MAX_VALUE, FooterRetainedSize.estimate(footer)))
                .recordStats()
                .build();
        stats = new NscCacheStatsMBean(footers);
    }

    /** A miss is a footer read from its storage node; a load that failed is not cached. */
    @Managed
    @Nested
    public NscCacheStatsMBean getCacheStats()
    {
        return stats;
    }

    public ParquetMetadata get(String fileId, ParquetDataSource dataSource)
    {
        try {
            return footers.get(fileId, () -> readFooter(dataSource));
        }
        catch (ExecutionException | UncheckedExecutionException e) {
            if (e.getCause() instanceof TrinoException trinoException) {
                throw trinoException;
            }
            throw new TrinoException(NSC_BAD_DATA, "Cannot read the Parquet footer of nsc file %s: %s".formatted(fileId, e.getCause().getMessage()), e.getCause());
        }
    }

    private static ParquetMetadata readFooter(ParquetDataSource dataSource)
    {
        try {
            return MetadataReader.readFooter(dataSource, Optional.empty());
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
