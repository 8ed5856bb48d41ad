package io.nsc.storage.store;

import com.google.protobuf.ByteString;
import io.airlift.units.DataSize;
import io.nsc.parquet.FixedRowGroupParquetWriter;
import io.nsc.protocol.stats.CompactFileStats;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.Type;
import org.apache.parquet.format.CompressionCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jol.info.GraphLayout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

import static io.airlift.units.DataSize.Unit.KILOBYTE;
import static io.trino.spi.type.BigintType.BIGINT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node's memory does not grow with what its files hold: each file served costs the same few
 * hundred bytes whether it has one row group of two columns or twenty of twelve, and the compact
 * stats read on demand stay within their cache's bytes however many files are asked about. The
 * heap is measured (JOL walks the store's object graph), not taken from the store's own figures,
 * which are checked against the measurement.
 */
final class TestFileMetadataMemory
{
    // the record, the id (32 characters), the checksum header and a map entry come to about 200
    // bytes: 256 leaves room for the map's table, whose size doubles in steps
    private static final long MAX_BYTES_PER_FILE = 256;
    private static final DataSize STATS_CACHE_SIZE = DataSize.of(64, KILOBYTE);
    private static final int FILES_PER_SHAPE = 1000;

    @TempDir
    private Path directory;

    @Test
    void testPerFileMemoryIsConstantAndStatsStayWithinTheirCache()
            throws Exception
    {
        byte[] narrow = parquetFile(directory.resolve("narrow.parquet"), 1, 2);
        byte[] wide = parquetFile(directory.resolve("wide.parquet"), 20, 12);
        ParquetFileStore store = ParquetFileStore.open(List.of(directory.resolve("data")), StoreOptions.DEFAULT.withStatsCacheSize(STATS_CACHE_SIZE));
        long empty = retainedBytes(store);

        upload(store, narrow, 0);
        long afterNarrow = retainedBytes(store);
        upload(store, wide, FILES_PER_SHAPE);
        long afterWide = retainedBytes(store);
        assertThat(store.getFileCount()).isEqualTo(2 * FILES_PER_SHAPE);

        // 12 times the row groups, 6 times the columns: the same memory per file
        long perNarrowFile = (afterNarrow - empty) / FILES_PER_SHAPE;
        long perWideFile = (afterWide - afterNarrow) / FILES_PER_SHAPE;
        assertThat(perNarrowFile).isLessThanOrEqualTo(MAX_BYTES_PER_FILE);
        assertThat(perWideFile).isLessThanOrEqualTo(MAX_BYTES_PER_FILE);
        // what the store reports (a constant per file) is the measured cost, within the map table's steps
        assertThat(store.getFileMetadataBytes()).isEqualTo(2L * FILES_PER_SHAPE * StoredFile.RETAINED_BYTES_PER_FILE);
        assertThat(StoredFile.RETAINED_BYTES_PER_FILE).isBetween(perWideFile * 3 / 4, MAX_BYTES_PER_FILE);
        // the column chunks are counted as files come, not kept per file
        assertThat(store.getColumnChunkCount()).isEqualTo(FILES_PER_SHAPE * (2L + 20 * 12));

        // every file's stats asked for, in turn: the cache keeps what fits, and the heap holds no more
        CompactFileStats wideStats = null;
        long highWater = 0;
        for (StoredFile file : store.files()) {
            CompactFileStats stats = store.stats(file);
            if (stats.rowGroupCount() == 20) {
                wideStats = stats;
            }
            highWater = Math.max(highWater, store.getCompactStatsBytes());
        }
        assertThat(wideStats).isNotNull();
        assertThat(wideStats.columnChunkCount()).isEqualTo(240);
        assertThat(highWater).isPositive().isLessThanOrEqualTo(STATS_CACHE_SIZE.toBytes());
        assertThat(store.getStatsCache().getEntries()).isPositive().isLessThan(2L * FILES_PER_SHAPE);
        assertThat(store.getStatsCache().getEvictions()).isPositive();
        long withStats = retainedBytes(store);
        // the measured growth is what the cache reports, give or take its tables
        assertThat(withStats - afterWide).isBetween(store.getCompactStatsBytes() / 2, store.getCompactStatsBytes() + 16 * 1024);

        // a restart loads the same constant metadata from the files, and no stats
        ParquetFileStore reopened = ParquetFileStore.open(List.of(directory.resolve("data")), StoreOptions.DEFAULT.withStatsCacheSize(STATS_CACHE_SIZE));
        assertThat(reopened.getFileCount()).isEqualTo(2 * FILES_PER_SHAPE);
        assertThat(reopened.getCompactStatsBytes()).isZero();
        assertThat(reopened.getColumnChunkCount()).isEqualTo(store.getColumnChunkCount());
        assertThat((retainedBytes(reopened) - empty) / (2 * FILES_PER_SHAPE)).isLessThanOrEqualTo(MAX_BYTES_PER_FILE);
        StoredFile any = reopened.files().getFirst();
        assertThat(reopened.stats(any).encoded()).isEqualTo(store.stats(store.require(any.id())).encoded());
    }

    @Test
    void testStatsOfADeletedFileLeaveTheCache()
            throws Exception
    {
        byte[] data = parquetFile(directory.resolve("narrow.parquet"), 2, 3);
        ParquetFileStore store = ParquetFileStore.open(List.of(directory.resolve("data")), StoreOptions.DEFAULT);
        upload(store, data, 0, 2);
        List<StoredFile> files = new ArrayList<>(store.files());
        files.forEach(store::stats);
        assertThat(store.getStatsCache().getEntries()).isEqualTo(2);
        long both = store.getCompactStatsBytes();

        assertThat(store.delete(files.getFirst().id())).isTrue();
        assertThat(store.getStatsCache().getEntries()).isEqualTo(1);
        assertThat(store.getCompactStatsBytes()).isEqualTo(both / 2);
        assertThat(store.getColumnChunkCount()).isEqualTo(6);
    }

    private static void upload(ParquetFileStore store, byte[] data, int firstId)
            throws Exception
    {
        upload(store, data, firstId, FILES_PER_SHAPE);
    }

    private static void upload(ParquetFileStore store, byte[] data, int firstId, int count)
            throws Exception
    {
        for (int i = firstId; i < firstId + count; i++) {
            try (FileUpload upload = store.beginUpload(new FileId(String.format(Locale.ROOT, "%032x", i)), data.length, "test")) {
                upload.write(ByteString.copyFrom(data));
                upload.finish();
            }
        }
    }

    /** What the store's object graph retains, measured. */
    private static long retainedBytes(ParquetFileStore store)
    {
        return GraphLayout.parseInstance(store).totalSize();
    }

    private static byte[] parquetFile(Path path, int rowGroups, int columns)
            throws Exception
    {
        List<String> names = new ArrayList<>();
        for (int column = 0; column < columns; column++) {
            names.add("c" + column);
        }
        List<Type> types = Collections.nCopies(columns, BIGINT);
        try (FixedRowGroupParquetWriter writer = new FixedRowGroupParquetWriter(path, names, types, CompressionCodec.SNAPPY)) {
            for (int rowGroup = 0; rowGroup < rowGroups; rowGroup++) {
                Block[] blocks = new Block[columns];
                for (int column = 0; column < columns; column++) {
                    BlockBuilder values = BIGINT.createBlockBuilder(null, 5);
                    for (int row = 0; row < 5; row++) {
                        BIGINT.writeLong(values, rowGroup * 100L + column * 10L + row);
                    }
                    blocks[column] = values.build();
                }
                writer.writeRowGroup(new Page(blocks));
            }
        }
        return Files.readAllBytes(path);
    }
}
