package io.nsc.storage.read;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.airlift.log.Logger;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.nsc.protocol.proto.ReadRangesResponse;
import io.nsc.protocol.server.StreamingServerCall;
import io.nsc.storage.store.ChecksummedReader;
import io.nsc.storage.store.CorruptBlockException;
import io.nsc.storage.store.DamagedCopies;
import io.nsc.storage.store.ParquetFileStore;
import io.nsc.storage.store.StoredFile;

import java.io.IOException;
import java.nio.file.NoSuchFileException;

import static java.lang.Math.min;
import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * One ReadRanges call: streams the planned ranges in request order, producing a message only
 * when gRPC says the client can take it (flow control), so a slow reader holds the node to one
 * read buffer plus the message in flight instead of the whole answer.
 * <p>
 * gRPC runs the handler, the on-ready and the on-cancel callbacks of one call serially, so the
 * state here needs no locking.
 */
final class RangeReadCall
        extends StreamingServerCall<ReadRangesResponse>
{
    private static final Logger log = Logger.get(RangeReadCall.class);

    private final StoredFile file;
    private final ReadPlan plan;
    private final int maxChunkBytes;
    private final RangeReader.Counters counters;

    private final ParquetFileStore store;
    private ChecksummedReader reader;
    private int rangeIndex;
    // next byte of the current range to send
    private long position;
    // the current read: bufferLength bytes of the file from bufferStart; messages wrap slices of it
    private byte[] buffer = new byte[0];
    private int bufferLength;
    private long bufferStart;

    RangeReadCall(ParquetFileStore store, StoredFile file, ReadPlan plan, int maxChunkBytes, ServerCallStreamObserver<ReadRangesResponse> call, RangeReader.Counters counters)
    {
        super(call);
        this.store = requireNonNull(store, "store is null");
        this.file = requireNonNull(file, "file is null");
        this.plan = requireNonNull(plan, "plan is null");
        this.maxChunkBytes = maxChunkBytes;
        this.counters = requireNonNull(counters, "counters is null");
    }

    void start()
    {
        call.setOnCancelHandler(this::cancel);
        call.setOnReadyHandler(this::drain);
        try {
            reader = store.openReader(file);
        }
        catch (NoSuchFileException e) {
            // deleted as an orphan between the lookup and here: as if the lookup had come later
            fail(Status.NOT_FOUND.withDescription("File %s not found on this node".formatted(file.id())).asRuntimeException());
            return;
        }
        catch (IOException e) {
            fail(Status.INTERNAL.withDescription("Cannot open file %s: %s".formatted(file.id(), e)).withCause(e).asRuntimeException());
            return;
        }
        if (plan.rangeCount() > 0) {
            position = plan.range(0).offset();
        }
        completeIfDone();
        drain();
    }

    private void drain()
    {
        try {
            while (!ended() && call.isReady()) {
                sendNext();
                completeIfDone();
            }
        }
        catch (CorruptBlockException e) {
            counters.corruptReads().update(1);
            store.quarantine(file, e.getMessage());
            fail(DamagedCopies.dataLoss(file, e));
        }
        catch (IOException e) {
            fail(Status.INTERNAL.withDescription("Cannot read file %s: %s".formatted(file.id(), e)).withCause(e).asRuntimeException());
        }
        catch (StatusRuntimeException e) {
            fail(e);
        }
        catch (RuntimeException e) {
            log.error(e, "ReadRanges on file %s failed", file.id());
            fail(Status.INTERNAL.withDescription("Reading file %s failed: %s".formatted(file.id(), e)).withCause(e).asRuntimeException());
        }
    }

    // completing needs no readiness: the client learns at once that nothing more comes
    private void completeIfDone()
    {
        if (!ended() && rangeIndex == plan.rangeCount()) {
            complete();
        }
    }

    private void sendNext()
            throws IOException
    {
        FileRange range = plan.range(rangeIndex);
        if (range.length() == 0) {
            // an empty range still gets its one (empty) message, so that every index is answered
            send(ByteString.EMPTY);
            nextRange();
            return;
        }
        if (position < bufferStart || position >= bufferStart + bufferLength) {
            fill(plan.readFor(rangeIndex, position));
        }
        long end = min(min(range.end(), bufferStart + bufferLength), position + maxChunkBytes);
        send(UnsafeByteOperations.unsafeWrap(buffer, (int) (position - bufferStart), (int) (end - position)));
        position = end;
        if (position == range.end()) {
            nextRange();
        }
    }

    private void fill(FileRange read)
            throws IOException
    {
        // whole checksum blocks, each checked before any of its bytes is sent. The array is the
        // call's own and is read into again: gRPC serializes a message into its transport's
        // buffers within onNext (the method's marshaller drains it there), so no message sent
        // still refers to it. A new array for every read was zeroed first (8% of a storage
        // node's CPU serving a full scan).
        long start = reader.readStart(read.offset());
        int length = toIntExact(reader.readEnd(read.end()) - start);
        if (buffer.length < length) {
            buffer = new byte[length];
        }
        reader.readBlocks(start, start + length, buffer);
        counters.bytesReadFromDisk().update(length);
        bufferLength = length;
        bufferStart = start;
    }

    private void send(ByteString data)
    {
        call.onNext(ReadRangesResponse.newBuilder()
                .setRangeIndex(rangeIndex)
                .setOffset(position)
                .setData(data)
                .build());
        counters.bytesSent().update(data.size());
    }

    private void nextRange()
    {
        rangeIndex++;
        if (rangeIndex < plan.rangeCount()) {
            position = plan.range(rangeIndex).offset();
        }
    }

    private void cancel()
    {
        if (end()) {
            log.debug("ReadRanges on file %s cancelled by the client", file.id());
        }
    }

    @Override
    protected void release()
    {
        buffer = new byte[0];
        bufferLength = 0;
        if (reader != null) {
            try {
                reader.close();
            }
            catch (IOException e) {
                log.warn(e, "Cannot close %s", file.path());
            }
        }
    }
}
