package io.nsc.trino.metadata;

import com.google.common.collect.Lists;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;
import io.nsc.trino.NscConfig;
import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.metadata.NscFilesTable.Kind;
import io.nsc.trino.metadata.NscFilesTable.Name;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.trino.spi.HostAddress;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.TupleDomain;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;

import static io.trino.spi.type.VarcharType.VARCHAR;
import static io.trino.testing.TestingConnectorSession.SESSION;
import static org.assertj.core.api.Assertions.assertThat;

final class TestNscFilesTable
{
    @Test
    void testNamesOfMetadataTables()
    {
        assertThat(Name.parse(new SchemaTableName("s", "t$files"))).contains(new Name(new SchemaTableName("s", "t"), Kind.FILES));
        assertThat(Name.parse(new SchemaTableName("s", "t$row_groups"))).contains(new Name(new SchemaTableName("s", "t"), Kind.ROW_GROUPS));
        // only the last suffix counts: a table name never holds a '$', and the lookup then finds no table
        assertThat(Name.parse(new SchemaTableName("s", "t$files$row_groups"))).contains(new Name(new SchemaTableName("s", "t$files"), Kind.ROW_GROUPS));
        for (String notOne : new String[] {"t", "$files", "$row_groups", "t$partitions", "t$files_", "tfiles"}) {
            assertThat(Name.parse(new SchemaTableName("s", notOne))).as(notOne).isEqualTo(Optional.empty());
        }
    }

    @Test
    void testListsBatchByBatchAndClosesTheListing()
            throws IOException
    {
        // 20,000 files of 3 row groups each: several pages of "$files", many more of "$row_groups"
        List<FileEntry> files = new ArrayList<>();
        for (int file = 0; file < 20_000; file++) {
            CompactFileStats.Builder stats = CompactFileStats.builder(List.of(KeyKind.EXACT));
            for (int rowGroup = 0; rowGroup < 3; rowGroup++) {
                stats.addRowGroup(10, 4 + rowGroup * 100L);
                stats.addColumnChunk(100, OptionalLong.of(1), OptionalLong.of(2), 0);
            }
            files.add(new FileEntry("%032x".formatted(file), 1000, 30, List.of(HostAddress.fromString("127.0.0.1:7080")), stats.footer(304, 10).build()));
        }
        NscTableHandle table = NscTableHandle.forTable(new SchemaTableName("s", "t"), 1, 1, List.of(), Map.of());
        NscMetadataClient client = new NscMetadataClient(new NscConfig().setMetadataAddress("127.0.0.1:1"), TransportSecurity.insecure());
        try {
            assertListsLazily(client, files, table);
        }
        finally {
            client.close();
        }
    }

    private static void assertListsLazily(NscMetadataClient client, List<FileEntry> files, NscTableHandle table)
            throws IOException
    {
        for (Kind kind : Kind.values()) {
            ListingCache cache = new ListingCache(client, files);
            ConnectorPageSource source = new NscFilesTable(new SchemaTableName("s", "t" + kind), kind, table, cache).pageSource(null, SESSION, TupleDomain.all());
            assertThat(cache.batchesRead.get()).as("nothing is listed before the engine asks").isZero();

            List<String> fileIds = new ArrayList<>();
            int pages = 0;
            for (SourcePage page = source.getNextSourcePage(); page != null; page = source.getNextSourcePage()) {
                pages++;
                for (int position = 0; position < page.getPositionCount(); position++) {
                    fileIds.add(VARCHAR.getSlice(page.getBlock(0), position).toStringUtf8());
                }
                if (pages == 1) {
                    // a page (about 1MB) holds the rows of some batches, not of the whole listing
                    assertThat(cache.batchesRead.get()).isLessThan(files.size() / ListingCache.BATCH);
                }
            }
            assertThat(source.isFinished()).isTrue();
            assertThat(pages).isGreaterThan(1);
            assertThat(fileIds).hasSize(kind == Kind.FILES ? 20_000 : 60_000);
            assertThat(fileIds.getLast()).isEqualTo("%032x".formatted(19_999));
            assertThat(cache.closed.get()).isEqualTo(1);
            source.close();
            assertThat(cache.closed.get()).isEqualTo(1);
        }

        // a query that stops reading (LIMIT, cancel) closes the listing
        ListingCache cache = new ListingCache(client, files);
        ConnectorPageSource source = new NscFilesTable(new SchemaTableName("s", "t$files"), Kind.FILES, table, cache).pageSource(null, SESSION, TupleDomain.all());
        assertThat(source.getNextSourcePage()).isNotNull();
        source.close();
        assertThat(cache.closed.get()).isEqualTo(1);
        assertThat(source.isFinished()).isTrue();
    }

    /** The connector's cache, listing given files in batches and counting what a page source reads and closes. */
    private static final class ListingCache
            extends TableFilesCache
    {
        static final int BATCH = 100;

        private final List<FileEntry> files;
        private final AtomicInteger batchesRead = new AtomicInteger();
        private final AtomicInteger closed = new AtomicInteger();

        // the client is never called: the listing comes from the given files
        ListingCache(NscMetadataClient unused, List<FileEntry> files)
        {
            super(unused, new NscConfig());
            this.files = files;
        }

        @Override
        public TableFileBatches fileBatches(NscTableHandle table)
        {
            var batches = Lists.partition(files, BATCH).iterator();
            return new TableFileBatches()
            {
                @Override
                public boolean hasNext()
                {
                    return batches.hasNext();
                }

                @Override
                public List<FileEntry> next()
                {
                    batchesRead.incrementAndGet();
                    return batches.next();
                }

                @Override
                public long filesKept()
                {
                    return 0;
                }

                @Override
                public void close()
                {
                    closed.incrementAndGet();
                }
            };
        }
    }
}
