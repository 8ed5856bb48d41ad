package io.nsc.trino.read;

import io.airlift.units.DataSize;
import io.nsc.parquet.LocalParquetDataSource;
import io.nsc.parquet.ParquetWriteCodec;
import io.nsc.trino.ExportedMBean;
import io.nsc.trino.NscConfig;
import io.nsc.trino.write.LocalParquetFile;
import io.nsc.trino.write.RowGroupSize;
import io.nsc.trino.write.WriteTypes;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.BlockBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static io.nsc.trino.NscErrorCode.NSC_BAD_DATA;
import static io.trino.spi.type.BigintType.BIGINT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestFooterCache
{
    @TempDir
    Path directory;

    @Test
    void testEachFooterIsReadOnceWhileCached()
            throws IOException
    {
        Path first = parquetFile("first.parquet", 3);
        Path second = parquetFile("second.parquet", 5);
        FooterCache cache = new FooterCache(new NscConfig());

        try (LocalParquetDataSource source = open(first); LocalParquetDataSource other = open(second)) {
            assertThat(cache.get("first", source).getBlocks().getFirst().rowCount()).isEqualTo(3);
            long bytesOfOne = source.getReadBytes();
            assertThat(bytesOfOne).isPositive();
            // cached: the same file id is answered without a read
            assertThat(cache.get("first", source).getBlocks().getFirst().rowCount()).isEqualTo(3);
            assertThat(cache.get("second", other).getBlocks().getFirst().rowCount()).isEqualTo(5);
            assertThat(cache.get("first", source).getBlocks().getFirst().rowCount()).isEqualTo(3);
            assertThat(source.getReadBytes()).isEqualTo(bytesOfOne);
        }
    }

    @Test
    void testHitsAndMissesAreExported()
            throws IOException
    {
        Path file = parquetFile("file.parquet", 3);
        FooterCache cache = new FooterCache(new NscConfig());
        ExportedMBean exported = new ExportedMBean(cache);
        try (LocalParquetDataSource source = open(file)) {
            cache.get("file", source);
            cache.get("file", source);
        }
        assertThat(exported.longAttribute("CacheStats.MissCount")).isEqualTo(1);
        assertThat(exported.longAttribute("CacheStats.HitCount")).isEqualTo(1);
        assertThat(exported.longAttribute("CacheStats.RequestCount")).isEqualTo(2);
        assertThat(exported.longAttribute("CacheStats.LoadCount")).isEqualTo(1);
        assertThat(exported.attribute("CacheStats.HitRate")).isEqualTo(0.5);
        assertThat(exported.longAttribute("CacheStats.Size")).isEqualTo(1);
    }

    @Test
    void testFootersOverTheSizeAreNotKept()
            throws IOException
    {
        Path file = parquetFile("file.parquet", 3);
        FooterCache cache = new FooterCache(new NscConfig().setFooterCacheMaxSize(DataSize.ofBytes(0)));
        try (LocalParquetDataSource source = open(file)) {
            cache.get("file", source);
            long bytesOfOne = source.getReadBytes();
            cache.get("file", source);
            assertThat(source.getReadBytes()).isEqualTo(2 * bytesOfOne);
        }
    }

    @Test
    void testUnreadableFooterIsBadDataAndNotCached()
            throws IOException
    {
        Path file = parquetFile("file.parquet", 3);
        byte[] bytes = Files.readAllBytes(file);
        // the footer length in the file's last 8 bytes points before the start of the file
        bytes[bytes.length - 6] = 0x7f;
        Path damaged = Files.write(directory.resolve("damaged.parquet"), bytes);
        FooterCache cache = new FooterCache(new NscConfig());

        try (LocalParquetDataSource bad = open(damaged); LocalParquetDataSource good = open(file)) {
            assertThatThrownBy(() -> cache.get("f", bad))
                    .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_BAD_DATA.toErrorCode()))
                    .hasMessageStartingWith("Cannot read the Parquet footer of nsc file f");
            // a later good copy of the same file (another replica) is read, not the failure remembered
            assertThat(cache.get("f", good).getBlocks().getFirst().rowCount()).isEqualTo(3);
        }
    }

    private static LocalParquetDataSource open(Path path)
            throws IOException
    {
        return LocalParquetDataSource.open(path, ParquetReaderOptions.builder().build());
    }

    private Path parquetFile(String name, int rows)
            throws IOException
    {
        BlockBuilder values = BIGINT.createBlockBuilder(null, rows);
        for (int row = 0; row < rows; row++) {
            BIGINT.writeLong(values, row);
        }
        LocalParquetFile file = LocalParquetFile.create(directory.resolve(name), WriteTypes.parquetSchema(List.of("a"), List.of(BIGINT)), RowGroupSize.DEFAULT, Set.of(), ParquetWriteCodec.ZSTD, Long.MAX_VALUE);
        file.append(new Page(values.build()));
        return file.finish().path();
    }
}
