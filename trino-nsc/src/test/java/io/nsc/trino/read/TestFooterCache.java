package io.nsc.trino.read;

import io.nsc.trino.NscConfig;
import io.nsc.trino.write.LocalParquetFile;
import io.nsc.trino.write.RowGroupSize;
import io.nsc.trino.write.WriteTypes;
import io.trino.parquet.AbstractParquetDataSource;
import io.trino.parquet.ParquetDataSourceId;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.BlockBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

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
        byte[] first = parquetFile("first.parquet", 3);
        byte[] second = parquetFile("second.parquet", 5);
        FooterCache cache = new FooterCache(new NscConfig().setFooterCacheSize(1));

        CountingDataSource source = new CountingDataSource(first);
        assertThat(cache.get("first", source).getBlocks().getFirst().rowCount()).isEqualTo(3);
        long readsOfOne = source.reads;
        assertThat(readsOfOne).isPositive();
        // cached: the same file id is answered without a read
        assertThat(cache.get("first", source).getBlocks().getFirst().rowCount()).isEqualTo(3);
        assertThat(source.reads).isEqualTo(readsOfOne);

        // room for one footer: the second evicts the first, which is then read again
        CountingDataSource other = new CountingDataSource(second);
        assertThat(cache.get("second", other).getBlocks().getFirst().rowCount()).isEqualTo(5);
        cache.get("first", source);
        assertThat(source.reads).isEqualTo(2 * readsOfOne);
    }

    @Test
    void testUnreadableFooterIsBadDataAndNotCached()
            throws IOException
    {
        byte[] file = parquetFile("damaged.parquet", 3);
        byte[] damaged = Arrays.copyOf(file, file.length);
        // the footer length in the file's last 8 bytes points before the start of the file
        damaged[damaged.length - 6] = 0x7f;
        FooterCache cache = new FooterCache(new NscConfig());

        assertThatThrownBy(() -> cache.get("f", new CountingDataSource(damaged)))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_BAD_DATA.toErrorCode()))
                .hasMessageStartingWith("Cannot read the Parquet footer of nsc file f");
        // a later good copy of the same file (another replica) is read, not the failure remembered
        assertThat(cache.get("f", new CountingDataSource(file)).getBlocks().getFirst().rowCount()).isEqualTo(3);
    }

    private byte[] parquetFile(String name, int rows)
            throws IOException
    {
        BlockBuilder values = BIGINT.createBlockBuilder(null, rows);
        for (int row = 0; row < rows; row++) {
            BIGINT.writeLong(values, row);
        }
        LocalParquetFile file = LocalParquetFile.create(directory.resolve(name), WriteTypes.parquetSchema(List.of("a"), List.of(BIGINT)), RowGroupSize.DEFAULT, Long.MAX_VALUE);
        file.append(new Page(values.build()));
        return Files.readAllBytes(file.finish().path());
    }

    private static final class CountingDataSource
            extends AbstractParquetDataSource
    {
        private final byte[] file;
        private long reads;

        CountingDataSource(byte[] file)
        {
            super(new ParquetDataSourceId("test"), file.length, ParquetReaderOptions.builder().build());
            this.file = file;
        }

        @Override
        protected void readInternal(long position, byte[] buffer, int bufferOffset, int bufferLength)
        {
            reads++;
            System.arraycopy(file, (int) position, buffer, bufferOffset, bufferLength);
        }
    }
}
