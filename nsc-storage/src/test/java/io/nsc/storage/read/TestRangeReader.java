package io.nsc.storage.read;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.airlift.units.DataSize;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.nsc.protocol.proto.ByteRange;
import io.nsc.protocol.proto.ReadRangesResponse;
import io.nsc.storage.store.DamagedFile;
import io.nsc.storage.store.FileId;
import io.nsc.storage.store.FileUpload;
import io.nsc.storage.store.ParquetFileStore;
import io.nsc.storage.store.StoreOptions;
import io.nsc.storage.store.StoredFile;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.nsc.storage.server.StorageTesting.fixture;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.type;

/**
 * The streaming side of ReadRanges against a scripted call, so that flow control and
 * cancellation can be checked step by step rather than by timing.
 */
final class TestRangeReader
{
    private static final int CHUNK = 1024;

    @TempDir
    private Path directory;

    private byte[] data;
    private ParquetFileStore store;
    private StoredFile file;
    private RangeReader reader;

    @BeforeEach
    void setUp()
            throws Exception
    {
        data = fixture("all_types.parquet");
        // blocks of half a chunk: every read of whole chunks is whole blocks, so the counts below are exact
        store = ParquetFileStore.open(List.of(directory), StoreOptions.DEFAULT.withChecksumBlockSize(CHUNK / 2));
        try (FileUpload upload = store.beginUpload(new FileId("00112233445566778899aabbccddeeff"), data.length, "test")) {
            upload.write(ByteString.copyFrom(data));
            file = upload.finish().file();
        }
        reader = new RangeReader(store, DataSize.ofBytes(512), DataSize.ofBytes(CHUNK), 10_000);
    }

    @Test
    void testProducesOnlyWhileTheClientIsReady()
    {
        ScriptedCall call = new ScriptedCall(2);
        List<ByteRange> ranges = List.of(range(0, data.length), range(0, data.length));
        reader.read(file, ranges, call);

        // two messages allowed, two sent, and only the disk reads they needed
        assertThat(call.messages).hasSize(2);
        assertThat(reader.getBytesReadFromDisk().getTotalCount()).isEqualTo(2 * CHUNK);
        assertThat(reader.getBytesSent().getTotalCount()).isEqualTo(2 * CHUNK);

        call.allow(3);
        assertThat(call.messages).hasSize(5);
        assertThat(reader.getBytesReadFromDisk().getTotalCount()).isEqualTo(5 * CHUNK);

        call.allow(Integer.MAX_VALUE);
        assertThat(call.completed).isTrue();
        assertThat(call.error).isNull();
        assertThat(call.data(0)).isEqualTo(ByteString.copyFrom(data));
        assertThat(call.data(1)).isEqualTo(ByteString.copyFrom(data));
        assertThat(call.messages).allSatisfy(message -> assertThat(message.getData().size()).isLessThanOrEqualTo(CHUNK));
        assertThat(reader.getBytesSent().getTotalCount()).isEqualTo(2L * data.length);
        assertThat(reader.getReadRequests().getTotalCount()).isEqualTo(1);
    }

    @Test
    void testStopsOnCancellation()
    {
        ScriptedCall call = new ScriptedCall(1);
        reader.read(file, List.of(range(0, data.length)), call);
        assertThat(call.messages).hasSize(1);

        call.cancel();
        call.allow(Integer.MAX_VALUE);
        assertThat(call.messages).hasSize(1);
        assertThat(call.completed).isFalse();
        assertThat(call.error).isNull();
        assertThat(reader.getBytesReadFromDisk().getTotalCount()).isEqualTo(CHUNK);
    }

    @Test
    void testFileShorterThanRecorded()
            throws Exception
    {
        // the file lost its tail behind the node's back: damage, and the copy stops being served
        Files.write(file.path(), new byte[100]);
        ScriptedCall call = new ScriptedCall(Integer.MAX_VALUE);
        reader.read(file, List.of(range(0, 10), range(5000, 10)), call);

        assertThat(call.completed).isFalse();
        assertThat(call.error)
                .asInstanceOf(type(StatusRuntimeException.class))
                .satisfies(e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DATA_LOSS))
                .satisfies(e -> assertThat(e.getStatus().getDescription()).startsWith("Copy of file %s on this node is damaged".formatted(file.id())));
        // the first range's block matched nothing either: no byte of the damaged file was sent
        assertThat(call.messages).isEmpty();
        assertThat(store.find(file.id())).isEmpty();
        assertThat(store.takeDamagedFiles()).extracting(DamagedFile::id).containsExactly(file.id());
        assertThat(reader.getCorruptReads().getTotalCount()).isEqualTo(1);
    }

    @Test
    void testReadInFlightSurvivesDeletion()
            throws Exception
    {
        ScriptedCall call = new ScriptedCall(1);
        reader.read(file, List.of(range(0, data.length)), call);
        assertThat(call.messages).hasSize(1);

        // reclaimed as an orphan meanwhile: the open channel still reads the unlinked file
        Files.delete(file.path());
        call.allow(Integer.MAX_VALUE);
        assertThat(call.error).isNull();
        assertThat(call.completed).isTrue();
        assertThat(call.data(0)).isEqualTo(ByteString.copyFrom(data));
    }

    @Test
    void testFileDeletedBeforeTheReadIsNotFound()
            throws Exception
    {
        // looked up just before its deletion, opened just after
        Files.delete(file.path());
        ScriptedCall call = new ScriptedCall(Integer.MAX_VALUE);
        reader.read(file, List.of(range(0, 10)), call);

        assertThat(call.completed).isFalse();
        assertThat(call.messages).isEmpty();
        assertThat(call.error)
                .asInstanceOf(type(StatusRuntimeException.class))
                .satisfies(e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND))
                .satisfies(e -> assertThat(e.getStatus().getDescription()).isEqualTo("File %s not found on this node".formatted(file.id())));
    }

    private static ByteRange range(long offset, long length)
    {
        return ByteRange.newBuilder().setOffset(offset).setLength(length).build();
    }

    private static ReadRangesResponse copyOf(ReadRangesResponse message)
    {
        try {
            return ReadRangesResponse.parseFrom(message.toByteArray());
        }
        catch (InvalidProtocolBufferException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * A call whose client takes a given number of messages before it stops being ready, and
     * which, like gRPC, runs the on-ready handler when it becomes ready again.
     */
    private static final class ScriptedCall
            extends ServerCallStreamObserver<ReadRangesResponse>
    {
        private final List<ReadRangesResponse> messages = new ArrayList<>();
        private long budget;
        private boolean cancelled;
        private boolean completed;
        private Throwable error;
        private Runnable onReady = () -> {};
        private Runnable onCancel = () -> {};

        ScriptedCall(long budget)
        {
            this.budget = budget;
        }

        void allow(long messages)
        {
            budget = messages == Integer.MAX_VALUE ? Long.MAX_VALUE : messages;
            onReady.run();
        }

        void cancel()
        {
            cancelled = true;
            budget = 0;
            onCancel.run();
        }

        ByteString data(int rangeIndex)
        {
            return messages.stream()
                    .filter(message -> message.getRangeIndex() == rangeIndex)
                    .map(ReadRangesResponse::getData)
                    .reduce(ByteString.EMPTY, ByteString::concat);
        }

        @Override
        public boolean isReady()
        {
            return !cancelled && budget > 0;
        }

        @Override
        public void onNext(ReadRangesResponse value)
        {
            assertThat(isReady()).as("message sent while the client is not ready").isTrue();
            // as gRPC's transport does: the message is serialized before onNext returns, and the
            // node may read into the array its data wrapped once it has
            messages.add(copyOf(value));
            budget--;
        }

        @Override
        public void onError(Throwable t)
        {
            error = t;
        }

        @Override
        public void onCompleted()
        {
            completed = true;
        }

        @Override
        public boolean isCancelled()
        {
            return cancelled;
        }

        @Override
        public void setOnCancelHandler(Runnable onCancelHandler)
        {
            onCancel = onCancelHandler;
        }

        @Override
        public void setOnReadyHandler(Runnable onReadyHandler)
        {
            onReady = onReadyHandler;
        }

        @Override
        public void setCompression(String compression) {}

        @Override
        public void disableAutoInboundFlowControl() {}

        @Override
        public void request(int count) {}

        @Override
        public void setMessageCompression(boolean enable) {}
    }
}
