package io.nsc.trino.metadata;

import com.google.common.base.Ticker;
import com.google.common.io.Closer;
import com.google.protobuf.ByteString;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.GetTableFilesRequest;
import io.nsc.protocol.proto.GetTableFilesResponse;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;
import io.nsc.trino.ExportedMBean;
import io.nsc.trino.NscConfig;
import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.SchemaTableName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.nsc.trino.NscErrorCode.NSC_METADATA_ERROR;
import static io.trino.spi.type.BigintType.BIGINT;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The coordinator's table-files cache against a metadata service that pages a table of 10 files
 * three at a time: what listings keep aside for the cache, in all and each, is counted and
 * bounded, let go when a listing stops early or fails, and cached only while still fresh.
 */
final class TestTableFilesCache
{
    private static final int FILES = 10;
    private static final int BATCH = 3;
    private static final NscColumnHandle X = new NscColumnHandle("x", BIGINT, 0);

    private final List<DataFile> table = files();
    private final FakeMetadataService service = new FakeMetadataService(table);
    private final Closer closer = Closer.create();

    @AfterEach
    void tearDown()
            throws IOException
    {
        closer.close();
    }

    @Test
    void testListingReadToItsEndIsCachedAndCountsWhatItKeeps()
    {
        TableFilesCache cache = cache(DataSize.of(1, DataSize.Unit.MEGABYTE), new Duration(1, TimeUnit.HOURS), Ticker.systemTicker());
        List<Long> kept = new ArrayList<>();
        List<FileEntry> listed = new ArrayList<>();
        try (TableFileBatches batches = cache.fileBatches(handle(1))) {
            while (batches.hasNext()) {
                listed.addAll(batches.next());
                kept.add(batches.filesKept());
            }
        }
        assertThat(listed).extracting(FileEntry::fileId).containsExactlyElementsOf(table.stream().map(DataFile::getFileId).toList());
        // the files of the batches before the last one; all handed to the cache after the last page
        assertThat(kept).containsExactly(0L, 3L, 6L, 0L);
        assertThat(cache.keptBytes()).isZero();
        assertThat(service.calls()).isEqualTo(4);

        // the next listing of the version comes from the cache
        try (TableFileBatches cached = cache.fileBatches(handle(1))) {
            assertThat(drain(cached)).isEqualTo(listed);
        }
        assertThat(service.calls()).isEqualTo(4);
    }

    @Test
    void testHitsAndMissesAreExported()
    {
        TableFilesCache cache = cache(DataSize.of(1, DataSize.Unit.MEGABYTE), new Duration(1, TimeUnit.HOURS), Ticker.systemTicker());
        ExportedMBean exported = new ExportedMBean(cache);
        // listed from the service and cached at its end, then served from the cache
        try (TableFileBatches batches = cache.fileBatches(handle(1))) {
            drain(batches);
        }
        try (TableFileBatches batches = cache.fileBatches(handle(1))) {
            drain(batches);
        }
        // a listing stopped early is a miss that caches nothing
        try (TableFileBatches batches = cache.fileBatches(handle(2))) {
            batches.next();
        }
        assertThat(exported.longAttribute("FilesCacheStats.MissCount")).isEqualTo(2);
        assertThat(exported.longAttribute("FilesCacheStats.HitCount")).isEqualTo(1);
        assertThat(exported.longAttribute("FilesCacheStats.LoadCount")).isEqualTo(1);
        assertThat(exported.longAttribute("FilesCacheStats.Size")).isEqualTo(1);

        assertThat(cache.summary(handle(1)).rowCount()).isEqualTo(FILES * 10);
        cache.summary(handle(1));
        assertThat(exported.longAttribute("SummariesCacheStats.MissCount")).isEqualTo(1);
        assertThat(exported.longAttribute("SummariesCacheStats.HitCount")).isEqualTo(1);
        assertThat(exported.longAttribute("SummariesCacheStats.Size")).isEqualTo(1);
        // the summary's own listing (with sketches) is not a lookup of the files cache
        assertThat(exported.longAttribute("FilesCacheStats.RequestCount")).isEqualTo(3);
    }

    @Test
    void testLifetimeOfZeroKeepsNothing()
    {
        TableFilesCache cache = cache(DataSize.of(1, DataSize.Unit.MEGABYTE), new Duration(0, SECONDS), Ticker.systemTicker());
        for (int listing = 0; listing < 2; listing++) {
            try (TableFileBatches batches = cache.fileBatches(handle(1))) {
                while (batches.hasNext()) {
                    batches.next();
                    assertThat(batches.filesKept()).isZero();
                    assertThat(cache.keptBytes()).isZero();
                }
            }
        }
        assertThat(service.calls()).isEqualTo(8);
    }

    @Test
    void testListingsKeepWithinAQuarterOfTheCacheTogether()
    {
        long tableBytes = table.size() * fileBytes();
        // a quarter holds the table once, not twice
        TableFilesCache cache = cache(DataSize.ofBytes(tableBytes * 4 * 3 / 2), new Duration(1, TimeUnit.HOURS), Ticker.systemTicker());
        TableFileBatches first = cache.fileBatches(handle(1));
        TableFileBatches second = cache.fileBatches(handle(2));
        long mostKept = 0;
        int secondBatches = 0;
        boolean secondStopped = false;
        while (first.hasNext() || second.hasNext()) {
            if (first.hasNext()) {
                first.next();
            }
            if (second.hasNext()) {
                second.next();
                secondBatches++;
                // past its first batch and before its last, a listing that keeps has files besides the last batch
                secondStopped |= secondBatches > 1 && second.hasNext() && second.filesKept() == 0;
            }
            mostKept = Math.max(mostKept, cache.keptBytes());
            assertThat(cache.keptBytes()).isLessThanOrEqualTo(tableBytes * 3 / 2);
        }
        assertThat(mostKept).isPositive();
        assertThat(secondStopped).as("the second listing could not reserve, and let go of what it kept").isTrue();
        assertThat(cache.keptBytes()).isZero();
        first.close();
        second.close();

        // version 1 was cached, version 2 not
        int calls = service.calls();
        drain(cache.fileBatches(handle(1)));
        assertThat(service.calls()).isEqualTo(calls);
        drain(cache.fileBatches(handle(2)));
        assertThat(service.calls()).isEqualTo(calls + 4);
    }

    @Test
    void testListingClosedEarlyOrFailingLetsGo()
    {
        TableFilesCache cache = cache(DataSize.of(1, DataSize.Unit.MEGABYTE), new Duration(1, TimeUnit.HOURS), Ticker.systemTicker());
        TableFileBatches batches = cache.fileBatches(handle(1));
        batches.next();
        batches.next();
        assertThat(cache.keptBytes()).isPositive();
        batches.close();
        assertThat(cache.keptBytes()).isZero();
        assertThat(batches.filesKept()).isZero();

        // a service that hands out the same page again would list it forever
        service.repeatSecondPage();
        TableFileBatches failing = cache.fileBatches(handle(3));
        failing.next();
        assertThatThrownBy(failing::next)
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_METADATA_ERROR.toErrorCode()))
                .hasMessage("nsc metadata service answered a page of table 1 that continues where it began");
        assertThat(cache.keptBytes()).isZero();
    }

    @Test
    void testListingSlowerThanTheLifetimeIsNotCached()
    {
        AtomicLong nanos = new AtomicLong();
        Ticker ticker = new Ticker()
        {
            @Override
            public long read()
            {
                return nanos.get();
            }
        };
        TableFilesCache cache = cache(DataSize.of(1, DataSize.Unit.MEGABYTE), new Duration(10, SECONDS), ticker);
        TableFileBatches batches = cache.fileBatches(handle(1));
        batches.next();
        // the first page's replicas are older than an entry may be by the time the last page comes
        nanos.addAndGet(SECONDS.toNanos(11));
        drain(batches);
        drain(cache.fileBatches(handle(1)));
        assertThat(service.calls()).isEqualTo(8);
    }

    private static List<FileEntry> drain(TableFileBatches batches)
    {
        List<FileEntry> files = new ArrayList<>();
        while (batches.hasNext()) {
            files.addAll(batches.next());
        }
        return files;
    }

    private long fileBytes()
    {
        return TableFiles.filesOf(GetTableFilesResponse.newBuilder().addAllFiles(table).addNodes(node()).build()).getFirst().retainedSizeInBytes();
    }

    private TableFilesCache cache(DataSize size, Duration ttl, Ticker ticker)
    {
        Server server;
        try {
            server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(service).build().start();
        }
        catch (IOException e) {
            throw new AssertionError(e);
        }
        closer.register(server::shutdownNow);
        NscConfig config = new NscConfig()
                .setMetadataAddress("127.0.0.1:" + server.getPort())
                .setTableFilesBatchSize(BATCH)
                .setTableFilesCacheMaxSize(size)
                .setTableFilesCacheTtl(ttl);
        NscMetadataClient client = new NscMetadataClient(config, TransportSecurity.insecure());
        closer.register(client::close);
        return new TableFilesCache(client, config, ticker);
    }

    private static NscTableHandle handle(long version)
    {
        return NscTableHandle.forTable(new SchemaTableName("s", "t"), 1, version, List.of(X), Map.of());
    }

    private static StorageNode node()
    {
        return StorageNode.newBuilder().setNodeId("node-a").setAddress("127.0.0.1:1").setAlive(true).build();
    }

    private static List<DataFile> files()
    {
        List<DataFile> files = new ArrayList<>();
        for (int file = 0; file < FILES; file++) {
            CompactFileStats.Builder stats = CompactFileStats.builder(List.of(KeyKind.EXACT));
            stats.addRowGroup(10, 4);
            stats.addColumnChunk(100, OptionalLong.of(file), OptionalLong.of(file + 5), 0);
            files.add(DataFile.newBuilder()
                    .setFileId("%032x".formatted(file))
                    .setSizeBytes(1000)
                    .setRowCount(10)
                    .addReplicaNodeIds("node-a")
                    .setCompactStats(ByteString.copyFrom(stats.footer(104, 10).build().encoded()))
                    .build());
        }
        return files;
    }

    /** Pages of the table's files as GetTableFiles answers them (the token: where the next page starts), counting the calls. */
    private static final class FakeMetadataService
            extends MetadataServiceGrpc.MetadataServiceImplBase
    {
        private final List<DataFile> files;
        private final AtomicInteger calls = new AtomicInteger();
        private volatile boolean repeatSecondPage;

        FakeMetadataService(List<DataFile> files)
        {
            this.files = files;
        }

        int calls()
        {
            return calls.get();
        }

        void repeatSecondPage()
        {
            repeatSecondPage = true;
        }

        @Override
        public void getTableFiles(GetTableFilesRequest request, StreamObserver<GetTableFilesResponse> observer)
        {
            calls.incrementAndGet();
            int start = request.getPageToken().isEmpty() ? 0 : Integer.parseInt(request.getPageToken().toStringUtf8());
            int end = Math.min(files.size(), start + request.getPageSize());
            int next = repeatSecondPage && start > 0 ? start : end;
            observer.onNext(GetTableFilesResponse.newBuilder()
                    .setTableId(request.getTableId())
                    .setVersion(request.getVersion())
                    .addAllFiles(files.subList(start, end))
                    .addNodes(node())
                    .setNextPageToken(next == files.size() ? ByteString.EMPTY : ByteString.copyFromUtf8(Integer.toString(next)))
                    .build());
            observer.onCompleted();
        }
    }
}
